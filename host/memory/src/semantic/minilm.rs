//! A BERT sentence encoder (all-MiniLM-L6-v2 and its kind) run on the
//! CPU: WordPiece ids, six transformer layers, mean pooling, unit length.
//! It reads the model's own files (`config.json`, `tokenizer.json`,
//! `model.safetensors`, `sentence_bert_config.json`,
//! `1_Pooling/config.json`) and refuses any it cannot run as written.
//!
//! The matrix products of a record go through `matrixmultiply`'s sgemm;
//! a short text's go through a kernel that streams the weights once (see
//! `Linear::streamed`). A 12-token question takes about 12 ms on the
//! 2-core machine this was measured on.

use std::path::Path;

use serde::Deserialize;

use super::weights::Tensors;
use super::wordpiece::WordPiece;
use super::Embed;

#[derive(Deserialize)]
struct BertConfig {
    hidden_size: usize,
    num_hidden_layers: usize,
    num_attention_heads: usize,
    intermediate_size: usize,
    max_position_embeddings: usize,
    vocab_size: usize,
    #[serde(default = "default_eps")]
    layer_norm_eps: f32,
    #[serde(default = "default_act")]
    hidden_act: String,
}

fn default_eps() -> f32 {
    1e-12
}

fn default_act() -> String {
    "gelu".to_string()
}

#[derive(Deserialize)]
struct SentenceConfig {
    max_seq_length: usize,
}

#[derive(Deserialize)]
struct PoolingConfig {
    pooling_mode_mean_tokens: bool,
    #[serde(default)]
    pooling_mode_cls_token: bool,
    #[serde(default)]
    pooling_mode_max_tokens: bool,
}

/// `x · Wᵀ + b` with `W` stored `out × in`, as PyTorch's Linear keeps it.
struct Linear {
    weight: Vec<f32>,
    bias: Vec<f32>,
    inputs: usize,
    outputs: usize,
}

struct Norm {
    gain: Vec<f32>,
    bias: Vec<f32>,
}

struct Layer {
    query: Linear,
    key: Linear,
    value: Linear,
    attention_out: Linear,
    attention_norm: Norm,
    up: Linear,
    down: Linear,
    output_norm: Norm,
}

/// The encoder, loaded once and shared by every embedding.
pub struct MiniLm {
    name: String,
    tokenizer: WordPiece,
    words: Vec<f32>,
    positions: Vec<f32>,
    token_type: Vec<f32>,
    embedding_norm: Norm,
    layers: Vec<Layer>,
    hidden: usize,
    heads: usize,
    eps: f32,
    max_tokens: usize,
}

fn read(dir: &Path, file: &str) -> Result<String, String> {
    std::fs::read_to_string(dir.join(file)).map_err(|e| format!("{file}: {e}"))
}

fn parse<T: serde::de::DeserializeOwned>(dir: &Path, file: &str) -> Result<T, String> {
    parse_text(file, &read(dir, file)?)
}

fn parse_text<T: serde::de::DeserializeOwned>(file: &str, text: &str) -> Result<T, String> {
    serde_json::from_str(text).map_err(|e| format!("{file}: {e}"))
}

/// An embedding model folder amber cannot use: which, and what is wrong
/// with which of its files.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("embedding model {}: {reason}", dir.display())]
pub struct BadModel {
    pub dir: std::path::PathBuf,
    /// The file and what is wrong with it.
    pub reason: String,
}

impl MiniLm {
    /// Loads the model in `dir`. The error names the file and what is
    /// wrong with it.
    pub fn load(dir: &Path) -> Result<Self, BadModel> {
        Self::load_inner(dir).map_err(|reason| BadModel {
            dir: dir.to_path_buf(),
            reason,
        })
    }

    fn load_inner(dir: &Path) -> Result<Self, String> {
        // config.json and tokenizer.json are read once: parsed here and
        // digested into the model's name below, from the same bytes.
        let config_text = read(dir, "config.json")?;
        let config: BertConfig = parse_text("config.json", &config_text)?;
        if config.hidden_act != "gelu" {
            return Err(format!(
                "config.json: activation {} is not supported (gelu is)",
                config.hidden_act
            ));
        }
        if config.num_attention_heads == 0
            || !config
                .hidden_size
                .is_multiple_of(config.num_attention_heads)
        {
            return Err("config.json: hidden_size is not a multiple of the heads".into());
        }
        // Zero or tiny sizes would pass every shape check and then break
        // the arithmetic of the forward pass.
        for (value, key, least) in [
            (config.hidden_size, "hidden_size", 1),
            (config.intermediate_size, "intermediate_size", 1),
            (config.vocab_size, "vocab_size", 1),
            (config.max_position_embeddings, "max_position_embeddings", 2),
        ] {
            if value < least {
                return Err(format!("config.json: {key} is {value}, under {least}"));
            }
        }
        let pooling: PoolingConfig = parse(dir, "1_Pooling/config.json")?;
        if !pooling.pooling_mode_mean_tokens
            || pooling.pooling_mode_cls_token
            || pooling.pooling_mode_max_tokens
        {
            return Err("1_Pooling/config.json: only mean pooling is supported".into());
        }
        let sentence: SentenceConfig = parse(dir, "sentence_bert_config.json")?;
        if sentence.max_seq_length < 2 {
            return Err("sentence_bert_config.json: max_seq_length is under 2".into());
        }
        let tokenizer_text = read(dir, "tokenizer.json")?;
        let tokenizer =
            WordPiece::from_json(&tokenizer_text).map_err(|e| format!("tokenizer.json: {e}"))?;
        if tokenizer.largest_id() as usize >= config.vocab_size {
            return Err(format!(
                "tokenizer.json has ids up to {}, past the model's {} words",
                tokenizer.largest_id(),
                config.vocab_size
            ));
        }
        let data = std::fs::read(dir.join("model.safetensors"))
            .map_err(|e| format!("model.safetensors: {e}"))?;
        // The model's identity, stored with each vector: its folder's name
        // and a digest of its files, so two models in like-named folders
        // (or the same folder refilled) never share vectors.
        let mut digest = blake3::Hasher::new();
        digest.update(config_text.as_bytes());
        digest.update(tokenizer_text.as_bytes());
        digest.update(&data);
        let folder = dir
            .canonicalize()
            .ok()
            .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "model".to_string());
        let name = format!("{folder}@{}", &digest.finalize().to_hex()[..12]);
        let tensors = Tensors::parse(data).map_err(|e| format!("model.safetensors: {e}"))?;
        let h = config.hidden_size;
        let take = |name: &str, shape: &[usize]| {
            // Some exports prefix every name with the architecture.
            tensors
                .take(name, shape)
                .or_else(|first| {
                    tensors
                        .take(&format!("bert.{name}"), shape)
                        .map_err(|_| first)
                })
                .map_err(|e| format!("model.safetensors: {e}"))
        };
        let linear = |name: &str, inputs: usize, outputs: usize| -> Result<Linear, String> {
            Ok(Linear {
                weight: take(&format!("{name}.weight"), &[outputs, inputs])?,
                bias: take(&format!("{name}.bias"), &[outputs])?,
                inputs,
                outputs,
            })
        };
        let norm = |name: &str| -> Result<Norm, String> {
            Ok(Norm {
                gain: take(&format!("{name}.weight"), &[h])?,
                bias: take(&format!("{name}.bias"), &[h])?,
            })
        };
        let mut layers = Vec::with_capacity(config.num_hidden_layers);
        for l in 0..config.num_hidden_layers {
            let p = format!("encoder.layer.{l}");
            layers.push(Layer {
                query: linear(&format!("{p}.attention.self.query"), h, h)?,
                key: linear(&format!("{p}.attention.self.key"), h, h)?,
                value: linear(&format!("{p}.attention.self.value"), h, h)?,
                attention_out: linear(&format!("{p}.attention.output.dense"), h, h)?,
                attention_norm: norm(&format!("{p}.attention.output.LayerNorm"))?,
                up: linear(
                    &format!("{p}.intermediate.dense"),
                    h,
                    config.intermediate_size,
                )?,
                down: linear(&format!("{p}.output.dense"), config.intermediate_size, h)?,
                output_norm: norm(&format!("{p}.output.LayerNorm"))?,
            });
        }
        Ok(MiniLm {
            name,
            tokenizer,
            words: take("embeddings.word_embeddings.weight", &[config.vocab_size, h])?,
            positions: take(
                "embeddings.position_embeddings.weight",
                &[config.max_position_embeddings, h],
            )?,
            token_type: take("embeddings.token_type_embeddings.weight", &[2, h])?,
            embedding_norm: norm("embeddings.LayerNorm")?,
            layers,
            hidden: h,
            heads: config.num_attention_heads,
            eps: config.layer_norm_eps,
            max_tokens: sentence.max_seq_length.min(config.max_position_embeddings),
        })
    }

    /// The token ids the model sees for `text`.
    pub fn ids(&self, text: &str) -> Vec<u32> {
        self.tokenizer.encode(text, self.max_tokens)
    }

    fn forward(&self, ids: &[u32]) -> Vec<f32> {
        let (t, h) = (ids.len(), self.hidden);
        let mut x = vec![0f32; t * h];
        for (i, &id) in ids.iter().enumerate() {
            let word = &self.words[id as usize * h..][..h];
            let position = &self.positions[i * h..][..h];
            for (j, v) in x[i * h..][..h].iter_mut().enumerate() {
                *v = word[j] + position[j] + self.token_type[j];
            }
        }
        self.embedding_norm.apply(&mut x, h, self.eps);
        let mut q = vec![0f32; t * h];
        let mut k = vec![0f32; t * h];
        let mut v = vec![0f32; t * h];
        let mut context = vec![0f32; t * h];
        let mut scores = vec![0f32; t * t];
        let mut projected = vec![0f32; t * h];
        let mut inner = vec![0f32; t * self.layers.first().map_or(0, |l| l.up.outputs)];
        for layer in &self.layers {
            layer.query.apply(&x, t, &mut q);
            layer.key.apply(&x, t, &mut k);
            layer.value.apply(&x, t, &mut v);
            self.attend(&q, &k, &v, t, &mut scores, &mut context);
            layer.attention_out.apply(&context, t, &mut projected);
            add(&mut x, &projected);
            layer.attention_norm.apply(&mut x, h, self.eps);
            layer.up.apply(&x, t, &mut inner);
            inner.iter_mut().for_each(|v| *v = gelu(*v));
            layer.down.apply(&inner, t, &mut projected);
            add(&mut x, &projected);
            layer.output_norm.apply(&mut x, h, self.eps);
        }
        let mut pooled = vec![0f32; h];
        for row in x.chunks_exact(h) {
            add(&mut pooled, row);
        }
        let length = pooled.iter().map(|v| v * v).sum::<f32>().sqrt();
        if length > 0.0 {
            pooled.iter_mut().for_each(|v| *v /= length);
        }
        pooled
    }

    /// Scaled dot-product attention, head by head, over every token (one
    /// unpadded sequence needs no mask).
    fn attend(
        &self,
        q: &[f32],
        k: &[f32],
        v: &[f32],
        t: usize,
        scores: &mut [f32],
        out: &mut [f32],
    ) {
        let h = self.hidden;
        let d = h / self.heads;
        let scale = 1.0 / (d as f32).sqrt();
        for head in 0..self.heads {
            let off = head * d;
            // scores = q_h · k_hᵀ (t × t)
            unsafe {
                matrixmultiply::sgemm(
                    t,
                    d,
                    t,
                    scale,
                    q[off..].as_ptr(),
                    h as isize,
                    1,
                    k[off..].as_ptr(),
                    1,
                    h as isize,
                    0.0,
                    scores.as_mut_ptr(),
                    t as isize,
                    1,
                );
            }
            for row in scores.chunks_exact_mut(t) {
                let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                let mut sum = 0.0;
                for s in row.iter_mut() {
                    *s = (*s - max).exp();
                    sum += *s;
                }
                row.iter_mut().for_each(|s| *s /= sum);
            }
            // out_h = scores · v_h (t × d), written into its columns.
            unsafe {
                matrixmultiply::sgemm(
                    t,
                    t,
                    d,
                    1.0,
                    scores.as_ptr(),
                    t as isize,
                    1,
                    v[off..].as_ptr(),
                    h as isize,
                    1,
                    0.0,
                    out[off..].as_mut_ptr(),
                    h as isize,
                    1,
                );
            }
        }
    }
}

/// Below this many tokens a product streams each weight row once past
/// every token (the weights, 7 MB a layer, are the cost); from it on,
/// sgemm's blocking wins.
const STREAMED_ROWS: usize = 24;

impl Linear {
    /// `out = x · Wᵀ + b` for `rows` rows of `x`.
    fn apply(&self, x: &[f32], rows: usize, out: &mut [f32]) {
        assert!(x.len() >= rows * self.inputs && out.len() >= rows * self.outputs);
        #[cfg(target_arch = "x86_64")]
        if (1..STREAMED_ROWS).contains(&rows) && simd::available() {
            self.streamed(x, rows, out);
            return;
        }
        for row in out[..rows * self.outputs].chunks_exact_mut(self.outputs) {
            row.copy_from_slice(&self.bias);
        }
        // Safety: the slices hold rows × inputs and rows × outputs values
        // (asserted above), and the weight is outputs × inputs; sgemm reads
        // and writes only inside those bounds with the strides given.
        unsafe {
            matrixmultiply::sgemm(
                rows,
                self.inputs,
                self.outputs,
                1.0,
                x.as_ptr(),
                self.inputs as isize,
                1,
                self.weight.as_ptr(),
                1,
                self.inputs as isize,
                1.0,
                out.as_mut_ptr(),
                self.outputs as isize,
                1,
            );
        }
    }

    /// A few rows: each weight row is read once, while every token's row
    /// stays in the first-level cache, and four tokens share each load of
    /// the weights. Needs AVX2 and FMA (checked at run time by `apply`, as
    /// the build targets baseline x86-64).
    #[cfg(target_arch = "x86_64")]
    fn streamed(&self, x: &[f32], rows: usize, out: &mut [f32]) {
        let n = self.inputs;
        let row = |t: usize| &x[t * n..][..n];
        for (o, w) in self.weight.chunks_exact(n).enumerate() {
            let mut t = 0;
            while t < rows {
                let block = (rows - t).min(4);
                // A short block repeats its last row; only `block` are kept.
                let four = std::array::from_fn(|k| row(t + k.min(block - 1)));
                // Safety: `apply` checked `simd::available()` (AVX2 and
                // FMA); every slice is `n` long.
                let sums = unsafe { simd::dot4(w, four) };
                for (k, sum) in sums.iter().enumerate().take(block) {
                    out[(t + k) * self.outputs + o] = self.bias[o] + sum;
                }
                t += block;
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod simd {
    use std::arch::x86_64::*;

    /// Whether the streamed kernel can run here; without it every
    /// product goes through sgemm.
    pub fn available() -> bool {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
    }

    /// The dot products of `w` with four rows of the same length: two
    /// eight-lane sums per row, eight independent chains in all.
    ///
    /// # Safety
    /// The CPU must support AVX2 and FMA, and every row must be as long
    /// as `w`.
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn dot4(w: &[f32], rows: [&[f32]; 4]) -> [f32; 4] {
        let n = w.len();
        debug_assert!(rows.iter().all(|r| r.len() == n));
        let (wp, r) = (w.as_ptr(), rows.map(<[f32]>::as_ptr));
        let mut acc = [_mm256_setzero_ps(); 8];
        let mut c = 0;
        while c + 16 <= n {
            let w0 = _mm256_loadu_ps(wp.add(c));
            let w1 = _mm256_loadu_ps(wp.add(c + 8));
            for k in 0..4 {
                acc[2 * k] = _mm256_fmadd_ps(_mm256_loadu_ps(r[k].add(c)), w0, acc[2 * k]);
                acc[2 * k + 1] =
                    _mm256_fmadd_ps(_mm256_loadu_ps(r[k].add(c + 8)), w1, acc[2 * k + 1]);
            }
            c += 16;
        }
        let mut out = [0f32; 4];
        for k in 0..4 {
            let mut lanes = [0f32; 8];
            _mm256_storeu_ps(
                lanes.as_mut_ptr(),
                _mm256_add_ps(acc[2 * k], acc[2 * k + 1]),
            );
            out[k] = lanes.iter().sum::<f32>() + (c..n).map(|i| rows[k][i] * w[i]).sum::<f32>();
        }
        out
    }
}

impl Norm {
    fn apply(&self, x: &mut [f32], width: usize, eps: f32) {
        for row in x.chunks_exact_mut(width) {
            let mean = row.iter().sum::<f32>() / width as f32;
            let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / width as f32;
            let inv = 1.0 / (var + eps).sqrt();
            for (j, v) in row.iter_mut().enumerate() {
                *v = (*v - mean) * inv * self.gain[j] + self.bias[j];
            }
        }
    }
}

fn add(into: &mut [f32], from: &[f32]) {
    into.iter_mut().zip(from).for_each(|(a, b)| *a += b);
}

/// BERT's exact GELU, `x · Φ(x)`.
fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + libm::erff(x / std::f32::consts::SQRT_2))
}

impl Embed for MiniLm {
    fn model(&self) -> &str {
        &self.name
    }

    fn embed(&self, text: &str) -> Vec<f32> {
        self.forward(&self.ids(text))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The model `cargo xtask test` installs; a test run without it fails
    /// and says how to get it.
    pub(crate) fn installed() -> MiniLm {
        let dir = std::env::var_os("AMBER_TEST_EMBEDDING_MODEL").expect(
            "AMBER_TEST_EMBEDDING_MODEL is not set: run the tests with `cargo xtask test`, \
             which installs the model (or `cargo xtask models` and point the variable at it)",
        );
        MiniLm::load(Path::new(&dir)).unwrap()
    }

    #[derive(Deserialize)]
    struct Reference {
        cases: Vec<Case>,
    }

    #[derive(Deserialize)]
    struct Case {
        text: String,
        ids: Vec<u32>,
        vector: Vec<f32>,
    }

    fn reference() -> Reference {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/embedding/minilm-reference.json");
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[test]
    fn tokens_and_vectors_match_the_reference_implementation() {
        let model = installed();
        for case in reference().cases {
            assert_eq!(model.ids(&case.text), case.ids, "ids of {:?}", case.text);
            let vector = model.embed(&case.text);
            let cosine: f32 = vector.iter().zip(&case.vector).map(|(a, b)| a * b).sum();
            assert!(cosine > 0.9999, "{:?}: cosine {cosine}", case.text);
        }
    }

    #[test]
    fn a_paraphrase_is_nearer_than_a_stranger() {
        let model = installed();
        let question = model.embed("How do I publish a new version?");
        let answer = model.embed("Cutting a release: bump the version, tag it, publish the crate.");
        let stranger = model.embed("The borrow checker rejected the mutable reference.");
        let dot = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
        assert!(dot(&question, &answer) > dot(&question, &stranger) + 0.2);
    }

    #[test]
    fn a_model_dir_with_a_missing_or_wrong_file_is_named_in_the_error() {
        let dir = tempfile::tempdir().unwrap();
        let err = MiniLm::load(dir.path()).err().unwrap().to_string();
        assert!(err.contains("config.json"), "{err}");
        std::fs::write(
            dir.path().join("config.json"),
            r#"{"hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2,
                "intermediate_size": 16, "max_position_embeddings": 8, "vocab_size": 4,
                "hidden_act": "relu"}"#,
        )
        .unwrap();
        let err = MiniLm::load(dir.path()).err().unwrap().to_string();
        assert!(err.contains("relu"), "{err}");
    }
}
