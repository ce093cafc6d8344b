import FolioMath

/// Zoom and pan of the open book: the view point q shows the book point (q − pan) / zoom.
/// Zooming keeps the point under the pointer still; the pan keeps part of the spread in view.
extension BookController.Settings {
    /// Closest view: at 8× a page's text is read line by line.
    public static let zoomRange = 0.5...8.0

    /// Zooms by `factor` (clamped to `zoomRange`) keeping the book point under view point `p`
    /// where it is. At zoom 1 or less the spread is centred again.
    public mutating func zoom(by factor: Double, toward p: Vec2) {
        guard factor.isFinite, factor > 0 else { return }
        let z = clamp(zoom * factor, Self.zoomRange.lowerBound, Self.zoomRange.upperBound)
        pan = p - (p - pan) * (z / zoom)
        zoom = z
        limitPan()
    }

    /// Moves the zoomed book by `delta` (layout units).
    public mutating func pan(by delta: Vec2) {
        pan = pan + delta
        limitPan()
    }

    /// Zoom 1, the spread centred.
    public mutating func fitSpread() {
        zoom = 1
        pan = .zero
    }

    /// The spread's centre stays within the zoomed view, so some of the book always shows;
    /// not zoomed in, nothing to pan.
    private mutating func limitPan() {
        guard zoom > 1 else { pan = .zero; return }
        let limit = viewSize * (zoom / 2)
        pan = Vec2(clamp(pan.x, -limit.x, limit.x), clamp(pan.y, -limit.y, limit.y))
    }
}
