// c-word-count: an amber tool plugin in C, a language without an SDK.
//
// The bindings (tool_plugin.h and .c) are generated from amber's WIT by
// wit-bindgen-c; `cargo xtask c-example` generates them, compiles this
// file with clang against wasi-libc, and makes the result a component
// (README.md). Returned strings and lists are allocated here and freed by
// the bindings after the host has copied them.

#include <stdlib.h>
#include <string.h>

#include "tool_plugin.h"

static const char *SCHEMA =
    "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\","
    "\"description\":\"The text to count.\"}},\"required\":[\"text\"]}";

void exports_amber_plugin_plugin_manifest(exports_amber_plugin_plugin_plugin_manifest_t *ret) {
  tool_plugin_string_dup(&ret->id, "c-word-count");
  tool_plugin_string_dup(&ret->name, "c-word-count");
  tool_plugin_string_dup(&ret->version, "0.1.0");
  tool_plugin_string_dup(&ret->description, "Counts the words of a text (written in C).");
  tool_plugin_string_dup(&ret->api_version, "0.3.0");
  ret->permissions.ptr = NULL;
  ret->permissions.len = 0;
}

bool exports_amber_plugin_plugin_initialize(exports_amber_plugin_plugin_init_context_t *ctx,
                                            tool_plugin_string_t *err) {
  (void)err;
  exports_amber_plugin_plugin_init_context_free(ctx);
  return true;
}

void exports_amber_plugin_plugin_capabilities(exports_amber_plugin_plugin_list_capability_t *ret) {
  exports_amber_plugin_plugin_capability_t *caps = malloc(sizeof *caps);
  caps->tag = AMBER_PLUGIN_TYPES_CAPABILITY_TOOL;
  tool_plugin_string_dup(&caps->val.tool.name, "c_word_count");
  tool_plugin_string_dup(&caps->val.tool.description, "Count the words of a text.");
  tool_plugin_string_dup(&caps->val.tool.input_schema, SCHEMA);
  caps->val.tool.read_only = true;
  ret->ptr = caps;
  ret->len = 1;
}

void exports_amber_plugin_plugin_shutdown(void) {}

// The string value of "text" in a JSON object, as written (escapes kept),
// or NULL. The host has checked the arguments against the schema.
static const uint8_t *text_value(const uint8_t *json, size_t len, size_t *out_len) {
  static const char key[] = "\"text\"";
  for (size_t i = 0; i + sizeof key - 1 <= len; i++) {
    if (memcmp(json + i, key, sizeof key - 1) != 0) continue;
    size_t j = i + sizeof key - 1;
    while (j < len && (json[j] == ' ' || json[j] == ':')) j++;
    if (j >= len || json[j] != '"') return NULL;
    size_t start = ++j;
    while (j < len && json[j] != '"') j += (json[j] == '\\') ? 2 : 1;
    if (j > len) return NULL;
    *out_len = j - start;
    return json + start;
  }
  return NULL;
}

static int is_space(const uint8_t *s, size_t i, size_t len, size_t *skip) {
  *skip = 1;
  if (s[i] == ' ') return 1;
  if (s[i] == '\\' && i + 1 < len && (s[i + 1] == 'n' || s[i + 1] == 't' || s[i + 1] == 'r')) {
    *skip = 2;
    return 1;
  }
  return 0;
}

bool exports_amber_plugin_tool_call(tool_plugin_string_t *name, tool_plugin_string_t *args_json,
                                    exports_amber_plugin_tool_tool_output_t *ret,
                                    exports_amber_plugin_tool_tool_error_t *err) {
  size_t len = 0;
  const uint8_t *text = text_value(args_json->ptr, args_json->len, &len);
  bool ok = text != NULL;
  if (ok) {
    size_t words = 0, skip = 1;
    int in_word = 0;
    for (size_t i = 0; i < len; i += skip) {
      if (is_space(text, i, len, &skip)) {
        in_word = 0;
      } else if (!in_word) {
        in_word = 1;
        words++;
      }
    }
    char out[32];
    size_t n = 0;
    char digits[24];
    do {
      digits[n++] = (char)('0' + words % 10);
      words /= 10;
    } while (words > 0);
    for (size_t k = 0; k < n; k++) out[k] = digits[n - 1 - k];
    strcpy(out + n, " words");
    tool_plugin_string_dup(&ret->content, out);
    ret->meta.is_some = false;
    ret->images.ptr = NULL;
    ret->images.len = 0;
  } else {
    err->tag = EXPORTS_AMBER_PLUGIN_TOOL_TOOL_ERROR_INVALID_ARGS;
    tool_plugin_string_dup(&err->val.invalid_args, "`text` must be a string");
  }
  tool_plugin_string_free(name);
  tool_plugin_string_free(args_json);
  return ok;
}
