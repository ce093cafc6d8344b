// libwebp for Folio: a WebP picture decoded to RGBA at the size asked, scaled inside the
// decoder (what the screen needs is all that is held). libwebp's config holds a union that is
// simpler to fill here than from Swift.
#include <webp/decode.h>
#include <string.h>

/// The picture's size and whether it is animated (libwebp's still decoder refuses those); 0
/// when the bytes are no WebP picture.
static inline int folio_webp_info(const uint8_t *data, size_t size, int *width, int *height, int *animated) {
    WebPBitstreamFeatures features;
    if (WebPGetFeatures(data, size, &features) != VP8_STATUS_OK) return 0;
    *width = features.width, *height = features.height, *animated = features.has_animation;
    return 1;
}

/// Decodes the picture into `out` (`width` × `height` RGBA, straight alpha), scaled to that size;
/// 1 when it decoded.
static inline int folio_webp_decode(const uint8_t *data, size_t size, uint8_t *out, int width, int height) {
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) return 0;
    config.options.use_scaling = 1;
    config.options.scaled_width = width;
    config.options.scaled_height = height;
    config.output.colorspace = MODE_RGBA;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = out;
    config.output.u.RGBA.stride = width * 4;
    config.output.u.RGBA.size = (size_t)width * (size_t)height * 4;
    int ok = WebPDecode(data, size, &config) == VP8_STATUS_OK;
    WebPFreeDecBuffer(&config.output);
    return ok;
}
