//! The host's [`ImagePrep`]: an image is known by its bytes (not its
//! name), checked against a decompression bomb before it is decoded,
//! decoded whole (a cut file is refused here, not by the vendor on every
//! later request), and shrunk to fit every vendor only when it does not
//! already: a screenshot that fits is sent byte for byte. A GIF is always
//! sent as its first frame, a PNG: OpenAI takes no animated GIF.

use std::io::Cursor;

use amber_core::ports::{Image, ImagePrep};
use image::codecs::jpeg::JpegEncoder;
use image::codecs::png::{CompressionType, FilterType, PngEncoder};
use image::{DynamicImage, ImageFormat, ImageReader, Limits};

use super::limits::{self, MAX_INPUT_BYTES, MAX_INPUT_EDGE};

/// JPEG quality for a photo that had to be shrunk: what vendors' own
/// resizers use, near enough, at a third of the bytes of 95.
const JPEG_QUALITY: u8 = 85;

/// Prepares images with the `image` crate to fit `max_edge` and
/// `max_bytes`.
#[derive(Debug, Clone, Copy)]
pub struct NativeImagePrep {
    max_edge: u32,
    max_bytes: usize,
}

impl Default for NativeImagePrep {
    /// Fit for every vendor ([`limits::for_every_vendor`]).
    fn default() -> Self {
        let (max_edge, max_bytes) = limits::for_every_vendor();
        NativeImagePrep {
            max_edge,
            max_bytes,
        }
    }
}

impl NativeImagePrep {
    pub fn new(max_edge: u32, max_bytes: usize) -> Self {
        NativeImagePrep {
            max_edge,
            max_bytes,
        }
    }
}

impl ImagePrep for NativeImagePrep {
    fn prepare(&self, bytes: &[u8]) -> Result<Image, String> {
        if bytes.len() > MAX_INPUT_BYTES {
            return Err(format!(
                "it is {} MB; an image is read up to {} MB",
                bytes.len() / 1_000_000,
                MAX_INPUT_BYTES / 1_000_000
            ));
        }
        let format = image::guess_format(bytes)
            .ok()
            .filter(|f| media_type(*f).is_some())
            .ok_or("it is not a PNG, JPEG, GIF or WebP image")?;
        let media = media_type(format).unwrap_or("image/png");
        // The header alone: no pixel is allocated for it.
        let (width, height) = ImageReader::with_format(Cursor::new(bytes), format)
            .into_dimensions()
            .map_err(|e| format!("it is not a readable {}: {e}", name(format)))?;
        if width.max(height) > MAX_INPUT_EDGE {
            return Err(format!(
                "it is {width}×{height}; an image is read up to {MAX_INPUT_EDGE} px a side"
            ));
        }
        let decoded = reader(bytes, format).decode().map_err(|e| match e {
            image::ImageError::Limits(_) => {
                format!("it is {width}×{height}, more pixels than amber decodes (512 MiB of them)")
            }
            e => format!("it is not a readable {}: {e}", name(format)),
        })?;
        let fits = width.max(height) <= self.max_edge && bytes.len() <= self.max_bytes;
        if fits && format != ImageFormat::Gif {
            return Ok(Image::new(media, bytes.to_vec(), width, height));
        }
        self.shrunk(decoded, format)
    }
}

impl NativeImagePrep {
    /// `decoded` made to fit: scaled to `max_edge`, then encoded as the
    /// kind it was (a GIF's first frame and a WebP as PNG, which every
    /// vendor takes and encodes losslessly); halved again while the bytes
    /// are over, down to a size that always fits.
    fn shrunk(&self, decoded: DynamicImage, format: ImageFormat) -> Result<Image, String> {
        let longest = decoded.width().max(decoded.height());
        let mut edge = self.max_edge.min(longest);
        loop {
            let scaled = if longest > edge {
                scaled_to(&decoded, edge)
            } else {
                decoded.clone()
            };
            let (bytes, media) = encode(&scaled, format)?;
            if bytes.len() <= self.max_bytes || edge <= 256 {
                if bytes.len() > self.max_bytes {
                    return Err(format!(
                        "even at {edge} px it is {} KB, over the {} KB a vendor takes",
                        bytes.len() / 1000,
                        self.max_bytes / 1000
                    ));
                }
                return Ok(Image::new(media, bytes, scaled.width(), scaled.height()));
            }
            edge /= 2;
        }
    }
}

/// `image` scaled so its longer side is `edge`, keeping its shape: a
/// convolution whose filter widens with the scale (so a big shrink
/// averages every source pixel, as an area average does) on the CPU's
/// SIMD; `image`'s own thumbnail if that cannot take this pixel type.
fn scaled_to(image: &DynamicImage, edge: u32) -> DynamicImage {
    let (width, height) = (image.width(), image.height());
    let scale = f64::from(edge) / f64::from(width.max(height));
    let side = |n: u32| ((f64::from(n) * scale).round() as u32).clamp(1, edge);
    let mut scaled = DynamicImage::new(side(width), side(height), image.color());
    let options = fast_image_resize::ResizeOptions::new().resize_alg(
        fast_image_resize::ResizeAlg::Convolution(fast_image_resize::FilterType::Bilinear),
    );
    match fast_image_resize::Resizer::new().resize(image, &mut scaled, &options) {
        Ok(()) => scaled,
        Err(_) => image.thumbnail(edge, edge),
    }
}

/// A reader of `bytes` as `format`, limited so a bomb is refused.
fn reader(bytes: &[u8], format: ImageFormat) -> ImageReader<Cursor<&[u8]>> {
    let mut reader = ImageReader::with_format(Cursor::new(bytes), format);
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_INPUT_EDGE);
    limits.max_image_height = Some(MAX_INPUT_EDGE);
    reader.limits(limits);
    reader
}

/// `image` encoded: a JPEG as a JPEG, anything else as a fast PNG.
fn encode(image: &DynamicImage, format: ImageFormat) -> Result<(Vec<u8>, &'static str), String> {
    let mut out = Vec::new();
    let failed = |e: image::ImageError| format!("it could not be encoded again: {e}");
    if format == ImageFormat::Jpeg {
        let rgb = image.to_rgb8();
        rgb.write_with_encoder(JpegEncoder::new_with_quality(&mut out, JPEG_QUALITY))
            .map_err(failed)?;
        return Ok((out, "image/jpeg"));
    }
    let encoder =
        PngEncoder::new_with_quality(&mut out, CompressionType::Fast, FilterType::Adaptive);
    image.write_with_encoder(encoder).map_err(failed)?;
    Ok((out, "image/png"))
}

/// The media type of a format a dialect can send.
fn media_type(format: ImageFormat) -> Option<&'static str> {
    match format {
        ImageFormat::Png => Some("image/png"),
        ImageFormat::Jpeg => Some("image/jpeg"),
        ImageFormat::Gif => Some("image/gif"),
        ImageFormat::WebP => Some("image/webp"),
        _ => None,
    }
}

fn name(format: ImageFormat) -> &'static str {
    match format {
        ImageFormat::Jpeg => "JPEG",
        ImageFormat::Gif => "GIF",
        ImageFormat::WebP => "WebP",
        _ => "PNG",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{ImageBuffer, Rgb};

    /// `img` as a PNG.
    fn encoded(img: ImageBuffer<Rgb<u8>, Vec<u8>>) -> Vec<u8> {
        let mut out = Vec::new();
        DynamicImage::ImageRgb8(img)
            .write_to(&mut Cursor::new(&mut out), ImageFormat::Png)
            .unwrap();
        out
    }

    /// A `w`×`h` PNG of a gradient (noise-free, so it compresses).
    pub fn png(w: u32, h: u32) -> Vec<u8> {
        encoded(ImageBuffer::from_fn(w, h, |x, y| {
            Rgb([(x % 256) as u8, (y % 256) as u8, 90])
        }))
    }

    #[test]
    fn an_image_that_fits_is_sent_byte_for_byte() {
        let bytes = png(300, 200);
        let image = NativeImagePrep::default().prepare(&bytes).unwrap();
        assert_eq!(image.data(), Some(bytes.as_slice()));
        assert_eq!(
            (image.width, image.height, image.media_type.as_str()),
            (300, 200, "image/png")
        );
    }

    #[test]
    fn a_large_image_is_shrunk_to_the_edge_keeping_its_shape() {
        let image = NativeImagePrep::new(100, 10_000_000)
            .prepare(&png(400, 300))
            .unwrap();
        assert_eq!((image.width, image.height), (100, 75));
        let back = image::load_from_memory(image.data().unwrap()).unwrap();
        assert_eq!((back.width(), back.height()), (100, 75));
    }

    /// A `w`×`h` PNG of noise, which does not compress.
    fn noisy_png(w: u32, h: u32) -> Vec<u8> {
        let mut seed = 7u32;
        encoded(ImageBuffer::from_fn(w, h, |_, _| {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let [a, b, c, _] = seed.to_le_bytes();
            Rgb([a, b, c])
        }))
    }

    #[test]
    fn a_shrink_averages_every_pixel_and_keeps_the_alpha() {
        // One-pixel black and white squares: sampling would keep black or
        // white; an average is grey everywhere.
        let board = ImageBuffer::from_fn(400, 400, |x, y| {
            let v = if (x + y) % 2 == 0 { 255 } else { 0 };
            image::Rgba([v, v, v, 200])
        });
        let scaled = scaled_to(&DynamicImage::ImageRgba8(board), 100);
        assert_eq!((scaled.width(), scaled.height()), (100, 100));
        let rgba = scaled.as_rgba8().expect("still RGBA");
        for pixel in rgba.pixels() {
            assert!((107..=148).contains(&pixel[0]), "{pixel:?}");
            assert!((195..=205).contains(&pixel[3]), "{pixel:?}");
        }
        // A thin strip keeps at least a pixel of its short side.
        let strip = DynamicImage::ImageRgb8(ImageBuffer::from_fn(4000, 2, |_, _| Rgb([9, 9, 9])));
        let thin = scaled_to(&strip, 1000);
        assert_eq!((thin.width(), thin.height()), (1000, 1));
    }

    #[test]
    fn an_image_over_the_bytes_is_halved_until_it_fits() {
        let bytes = noisy_png(400, 400);
        assert!(bytes.len() > 100_000);
        let image = NativeImagePrep::new(1000, 200_000).prepare(&bytes).unwrap();
        assert!(image.data().unwrap().len() <= 200_000);
        assert_eq!(image.width, 200, "400 px is over the bytes, 200 px is not");
    }

    #[test]
    fn what_is_not_an_image_is_refused_by_its_bytes_not_its_name() {
        let err = NativeImagePrep::default()
            .prepare(b"%PDF-1.7 ...")
            .unwrap_err();
        assert!(err.contains("not a PNG, JPEG, GIF or WebP"), "{err}");
        let mut cut = png(50, 50);
        cut.truncate(40);
        let err = NativeImagePrep::new(10, 100).prepare(&cut).unwrap_err();
        assert!(err.contains("PNG"), "{err}");
    }

    /// CRC-32 as PNG chunks carry it (ISO-HDLC, reflected).
    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in bytes {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0xEDB8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }

    #[test]
    fn a_decompression_bomb_is_refused_before_it_is_decoded() {
        // A valid PNG whose header claims 30000×30000 (its CRC mended):
        // refused on its header, before a pixel is allocated.
        let mut bytes = png(1, 1);
        bytes[16..20].copy_from_slice(&30_000u32.to_be_bytes());
        bytes[20..24].copy_from_slice(&30_000u32.to_be_bytes());
        let crc = crc32(&bytes[12..29]);
        bytes[29..33].copy_from_slice(&crc.to_be_bytes());
        let err = NativeImagePrep::default().prepare(&bytes).unwrap_err();
        assert!(
            err.contains("30000×30000") && err.contains("20000 px a side"),
            "{err}"
        );
    }

    #[test]
    fn a_gif_goes_as_a_png_of_its_first_frame_and_a_cut_file_is_refused() {
        let mut gif = Vec::new();
        DynamicImage::ImageRgb8(ImageBuffer::from_fn(8, 8, |_, _| Rgb([1, 2, 3])))
            .write_to(&mut Cursor::new(&mut gif), ImageFormat::Gif)
            .unwrap();
        let image = NativeImagePrep::default().prepare(&gif).unwrap();
        assert_eq!((image.media_type.as_str(), image.width), ("image/png", 8));
        let mut cut = png(64, 64);
        cut.truncate(cut.len() / 2);
        let err = NativeImagePrep::default().prepare(&cut).unwrap_err();
        assert!(err.contains("not a readable PNG"), "{err}");
    }
}
