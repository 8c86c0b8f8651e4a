import Foundation

/// A small line chart as inline SVG, drawn on the server (no script, no library). Only numbers
/// and the caller's fixed label go into the markup, which the templates insert unescaped.
struct SVGChart {
    static let width = 240.0
    static let height = 80.0

    /// `values` left to right (oldest first); nil values leave a gap at zero. The vertical
    /// scale runs from zero to the largest value (or 1 when everything is zero).
    static func svg(_ values: [Double?], label: String) -> String {
        let top = max(values.compactMap { $0 }.max() ?? 0, 1e-9)
        let step = values.count > 1 ? width / Double(values.count - 1) : width
        let points = values.enumerated().map { index, value in
            let x = values.count > 1 ? Double(index) * step : width
            let y = height - 4 - ((value ?? 0) / top) * (height - 8)
            return "\(format(x)),\(format(y))"
        }
        let line = points.joined(separator: " ")
        let area = points.isEmpty ? "" : "0,\(format(height)) \(line) \(format(width)),\(format(height))"
        return """
            <svg viewBox="0 0 \(format(width)) \(format(height))" preserveAspectRatio="none" role="img" aria-label="\(escape(label))">\
            <line class="base" x1="0" y1="\(format(height - 0.5))" x2="\(format(width))" y2="\(format(height - 0.5))"/>\
            <polygon class="area" points="\(area)"/><polyline class="line" points="\(line)"/></svg>
            """
    }

    static func format(_ value: Double) -> String { String(format: "%.1f", value) }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: "\"", with: "&quot;")
    }
}
