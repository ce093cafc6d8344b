import CPangoCairo
import FolioImage
import FolioOverlay

/// Paints the layer's panels into images: boxes with cairo, text shaped by pango (any script
/// the system's fonts cover, the desktop's sans-serif face), at the pixel size the panel has in
/// the framebuffer, so nothing is scaled after.
///
/// Does not: decide what a panel holds or where it goes (FolioOverlay), touch GL, or load fonts
/// of its own. Thread-safe: each call makes its own cairo surface and pango layout.
public enum OverlayPainter {
    /// Pixels of `panel`, rows top to bottom, colours premultiplied by alpha (as the renderer
    /// blends them). A panel of no area paints a 1×1 transparent image.
    public static func paint(_ panel: OverlayPanel) -> RGBAImage {
        // Panels are at most a framebuffer's size; a framebuffer is at most 16384 a side.
        let w = Int32(min(max(panel.frame.width.rounded(.up), 1), 16384))
        let h = Int32(min(max(panel.frame.height.rounded(.up), 1), 16384))
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h) else { return clear }
        defer { cairo_surface_destroy(surface) }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let cr = cairo_create(surface) else { return clear }
        for box in panel.boxes { fill(box, cr) }
        for text in panel.texts { draw(text, cr) }
        cairo_destroy(cr)
        cairo_surface_flush(surface)
        return image(of: surface, width: Int(w), height: Int(h))
    }

    private static let clear = RGBAImage(width: 1, height: 1, fill: (0, 0, 0, 0))

    private static func set(_ c: OverlayColor, _ cr: OpaquePointer) {
        cairo_set_source_rgba(cr, c.r, c.g, c.b, c.a)
    }

    private static func fill(_ box: OverlayBox, _ cr: OpaquePointer) {
        let f = box.frame, r = min(box.radius, f.width / 2, f.height / 2)
        cairo_new_sub_path(cr)
        cairo_arc(cr, f.maxX - r, f.y + r, r, -.pi / 2, 0)
        cairo_arc(cr, f.maxX - r, f.maxY - r, r, 0, .pi / 2)
        cairo_arc(cr, f.x + r, f.maxY - r, r, .pi / 2, .pi)
        cairo_arc(cr, f.x + r, f.y + r, r, .pi, 3 * .pi / 2)
        cairo_close_path(cr)
        set(box.color, cr)
        cairo_fill(cr)
    }

    /// Whether `text` shows whole in its frame: not cut with an ellipsis, its lines within the
    /// frame's height.
    public static func fits(_ text: OverlayText) -> Bool {
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1) else { return false }
        defer { cairo_surface_destroy(surface) }
        guard let cr = cairo_create(surface) else { return false }
        defer { cairo_destroy(cr) }
        guard let layout = layout(text, cr) else { return false }
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        var tw: Int32 = 0, th: Int32 = 0
        pango_layout_get_pixel_size(layout, &tw, &th)
        return pango_layout_is_ellipsized(layout) == 0 && Double(tw) <= text.frame.width + 1 && Double(th) <= text.frame.height + 1
    }

    /// The lines `text` takes in its frame's width as drawn (one unless it wraps).
    @Sendable public static func lines(_ text: OverlayText) -> Int {
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1) else { return 1 }
        defer { cairo_surface_destroy(surface) }
        guard let cr = cairo_create(surface) else { return 1 }
        defer { cairo_destroy(cr) }
        guard let layout = layout(text, cr) else { return 1 }
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        return max(Int(pango_layout_get_line_count(layout)), 1)
    }

    /// Pango's layout of `text` on `cr`, as drawn; nil for a text of no room.
    private static func layout(_ text: OverlayText, _ cr: OpaquePointer) -> OpaquePointer? {
        guard text.frame.width >= 1, text.size > 0, let layout = pango_cairo_create_layout(cr) else { return nil }
        let font = pango_font_description_from_string("Sans")
        defer { pango_font_description_free(font) }
        pango_font_description_set_absolute_size(font, text.size * Double(PANGO_SCALE))
        if text.bold { pango_font_description_set_weight(font, PANGO_WEIGHT_BOLD) }
        pango_layout_set_font_description(layout, font)
        pango_layout_set_text(layout, text.string, -1)
        pango_layout_set_width(layout, Int32(text.frame.width * Double(PANGO_SCALE)))
        if text.wraps {
            pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)
        } else {
            pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END)
        }
        pango_layout_set_single_paragraph_mode(layout, 1)
        switch text.align {
        case .left: pango_layout_set_alignment(layout, PANGO_ALIGN_LEFT)
        case .center: pango_layout_set_alignment(layout, PANGO_ALIGN_CENTER)
        case .right: pango_layout_set_alignment(layout, PANGO_ALIGN_RIGHT)
        }
        return layout
    }

    private static func draw(_ text: OverlayText, _ cr: OpaquePointer) {
        guard let layout = layout(text, cr) else { return }
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        var tw: Int32 = 0, th: Int32 = 0
        pango_layout_get_pixel_size(layout, &tw, &th)
        cairo_move_to(cr, text.frame.x, (text.frame.y + (text.frame.height - Double(th)) / 2).rounded())
        set(text.color, cr)
        pango_cairo_show_layout(cr, layout)
    }

    /// Cairo's ARGB32 (premultiplied, one native-endian word a pixel) as RGBA bytes.
    private static func image(of surface: OpaquePointer, width: Int, height: Int) -> RGBAImage {
        let stride = Int(cairo_image_surface_get_stride(surface))
        guard let data = cairo_image_surface_get_data(surface) else { return clear }
        let pixels = [UInt8](unsafeUninitializedCapacity: width * height * 4) { out, count in
            data.withMemoryRebound(to: UInt32.self, capacity: stride / 4 * height) { words in
                for y in 0..<height {
                    let row = words + y * stride / 4
                    var i = y * width * 4
                    for x in 0..<width {
                        let p = row[x]
                        out[i] = UInt8(truncatingIfNeeded: p >> 16)
                        out[i + 1] = UInt8(truncatingIfNeeded: p >> 8)
                        out[i + 2] = UInt8(truncatingIfNeeded: p)
                        out[i + 3] = UInt8(truncatingIfNeeded: p >> 24)
                        i += 4
                    }
                }
            }
            count = width * height * 4
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }
}
