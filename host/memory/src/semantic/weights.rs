//! Reads a `model.safetensors` file: an 8-byte little-endian header
//! length, a JSON header naming each tensor's dtype, shape and byte range,
//! then the raw data. Only f32 tensors are read; each is checked against
//! the shape the model expects before it is used.

use std::collections::HashMap;

use serde::Deserialize;

#[derive(Deserialize)]
struct Entry {
    dtype: String,
    shape: Vec<usize>,
    data_offsets: (usize, usize),
}

/// The tensors of one file, still as bytes.
pub struct Tensors {
    data: Vec<u8>,
    start: usize,
    entries: HashMap<String, Entry>,
}

impl Tensors {
    pub(crate) fn parse(data: Vec<u8>) -> Result<Self, String> {
        let head: [u8; 8] = data
            .get(..8)
            .and_then(|b| b.try_into().ok())
            .ok_or("shorter than a safetensors header")?;
        let len = u64::from_le_bytes(head) as usize;
        let end = 8usize
            .checked_add(len)
            .filter(|end| *end <= data.len())
            .ok_or("the header runs past the end of the file")?;
        let raw: HashMap<String, serde_json::Value> = serde_json::from_slice(&data[8..end])
            .map_err(|e| format!("the header is not JSON: {e}"))?;
        let mut entries = HashMap::new();
        for (name, value) in raw {
            if name == "__metadata__" {
                continue;
            }
            let entry: Entry = serde_json::from_value(value)
                .map_err(|e| format!("tensor {name}: bad header entry: {e}"))?;
            entries.insert(name, entry);
        }
        Ok(Tensors {
            data,
            start: end,
            entries,
        })
    }

    /// The f32 tensor `name`, which must have `shape`.
    pub(crate) fn take(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>, String> {
        let entry = self
            .entries
            .get(name)
            .ok_or_else(|| format!("the weights have no tensor {name}"))?;
        if entry.dtype != "F32" {
            return Err(format!("tensor {name} is {}, not F32", entry.dtype));
        }
        if entry.shape != shape {
            return Err(format!(
                "tensor {name} has shape {:?}, expected {shape:?}",
                entry.shape
            ));
        }
        let (from, to) = entry.data_offsets;
        let count: usize = shape.iter().product();
        let range = self.start.checked_add(from).zip(self.start.checked_add(to));
        let bytes = range
            .and_then(|(from, to)| self.data.get(from..to))
            .filter(|b| b.len() == count * 4)
            .ok_or_else(|| format!("tensor {name}: its byte range does not fit the file"))?;
        Ok(bytes
            .as_chunks::<4>()
            .0
            .iter()
            .map(|b| f32::from_le_bytes(*b))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(header: &str, data: &[u8]) -> Vec<u8> {
        let mut out = (header.len() as u64).to_le_bytes().to_vec();
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(data);
        out
    }

    #[test]
    fn a_tensor_is_read_with_its_shape_checked() {
        let mut data = Vec::new();
        for v in [1.0f32, -2.5, 3.0, 0.5] {
            data.extend_from_slice(&v.to_le_bytes());
        }
        let header = r#"{"__metadata__":{"format":"pt"},"w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}}"#;
        let tensors = Tensors::parse(file(header, &data)).unwrap();
        assert_eq!(
            tensors.take("w", &[2, 2]).unwrap(),
            vec![1.0, -2.5, 3.0, 0.5]
        );
        assert!(tensors
            .take("w", &[4])
            .unwrap_err()
            .contains("expected [4]"));
        assert!(tensors.take("b", &[2]).unwrap_err().contains("no tensor b"));
    }

    #[test]
    fn truncated_files_are_errors_not_panics() {
        assert!(Tensors::parse(vec![1, 2]).is_err());
        let header = r#"{"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}"#;
        let tensors = Tensors::parse(file(header, &[0; 8])).unwrap();
        assert!(tensors.take("w", &[4]).unwrap_err().contains("byte range"));
        let mut huge = u64::MAX.to_le_bytes().to_vec();
        huge.extend_from_slice(b"{}");
        assert!(Tensors::parse(huge).is_err());
    }
}
