//! OpenAI dialects: being written.
