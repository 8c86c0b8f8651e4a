import Foundation

/// A line chart a person can read, as inline SVG drawn on the server (no script, no library):
/// a time axis labelled in UTC clock times every quarter hour of the window, a y-axis from zero
/// to a round top value labelled with the unit, and the line broken where no sample exists (a
/// minute no instance recorded). Only numbers, fixed labels and `unit`'s output go into the
/// markup, which the templates insert unescaped; all text is escaped here anyway.
struct SVGChart {
    struct Point {
        var at: Date
        var value: Double
    }

    static let width = 480.0
    static let height = 170.0
    /// Room for the y labels at the left and the time labels below.
    static let left = 72.0, right = 12.0, top = 10.0, bottom = 24.0

    /// `points` oldest first, one per `step` at most, drawn over `start…end`; `unit` writes a
    /// value with its unit ("250 ms", "12 /min"). The value axis reaches at least `minimumTop`
    /// (2 for counts, so its middle label is a whole number).
    static func svg(_ points: [Point], start: Date, end: Date, step: TimeInterval, label: String, minimumTop: Double = 0,
                    unit: (Double) -> String) -> String {
        let span = max(end.timeIntervalSince(start), 1)
        let highest = points.map(\.value).max() ?? 0
        let ceiling = max(highest > 0 ? roundTop(highest) : 0, minimumTop > 0 ? minimumTop : 1)
        let plotWidth = width - left - right, plotHeight = height - top - bottom
        func x(_ date: Date) -> Double { left + plotWidth * min(max(date.timeIntervalSince(start) / span, 0), 1) }
        func y(_ value: Double) -> Double { top + plotHeight * (1 - min(value / ceiling, 1)) }
        var parts: [String] = []
        // Horizontal grid at 0, half and the top, each labelled with its value and unit.
        for fraction in [0.0, 0.5, 1.0] {
            let value = ceiling * fraction
            parts.append(#"<line class="grid" x1="\#(f(left))" y1="\#(f(y(value)))" x2="\#(f(width - right))" y2="\#(f(y(value)))"/>"#)
            parts.append(#"<text class="axis axis-y" x="\#(f(left - 6))" y="\#(f(y(value) + 4))" text-anchor="end">\#(escape(unit(value)))</text>"#)
        }
        // Time ticks every quarter of the window, labelled with the UTC clock time.
        for quarter in 0...4 {
            let at = start.addingTimeInterval(span * Double(quarter) / 4)
            let anchor = quarter == 0 ? "start" : quarter == 4 ? "end" : "middle"
            parts.append(#"<line class="tick" x1="\#(f(x(at)))" y1="\#(f(height - bottom))" x2="\#(f(x(at)))" y2="\#(f(height - bottom + 4))"/>"#)
            parts.append(#"<text class="axis axis-x" x="\#(f(x(at)))" y="\#(f(height - 6))" text-anchor="\#(anchor)">\#(clock(at))</text>"#)
        }
        parts.append(#"<line class="base" x1="\#(f(left))" y1="\#(f(height - bottom))" x2="\#(f(width - right))" y2="\#(f(height - bottom))"/>"#)
        for run in runs(points, step: step) {
            if run.count == 1, let only = run.first {
                parts.append(#"<circle class="dot" cx="\#(f(x(only.at)))" cy="\#(f(y(only.value)))" r="2.5"/>"#)
            } else {
                parts.append(#"<polyline class="line" points="\#(run.map { "\(f(x($0.at))),\(f(y($0.value)))" }.joined(separator: " "))"/>"#)
            }
        }
        return #"<svg viewBox="0 0 \#(f(width)) \#(f(height))" role="img" aria-label="\#(escape(label))">\#(parts.joined())</svg>"#
    }

    /// Consecutive points no more than `step` (and a little) apart; a longer gap breaks the line.
    static func runs(_ points: [Point], step: TimeInterval) -> [[Point]] {
        var runs: [[Point]] = []
        for point in points {
            if let last = runs.last?.last, point.at.timeIntervalSince(last.at) <= step * 1.5 {
                runs[runs.count - 1].append(point)
            } else {
                runs.append([point])
            }
        }
        return runs
    }

    /// The smallest 1, 2 or 5 times a power of ten at or above `value` (1 when all is zero).
    static func roundTop(_ value: Double) -> Double {
        guard value > 0, value.isFinite else { return 1 }
        let magnitude = pow(10, (log10(value)).rounded(.down))
        for factor in [1.0, 2, 5, 10] where factor * magnitude >= value * 0.999_999 { return factor * magnitude }
        return 10 * magnitude
    }

    static func clock(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        return String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }

    static func f(_ value: Double) -> String { String(format: "%.1f", value) }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: "\"", with: "&quot;")
    }
}
