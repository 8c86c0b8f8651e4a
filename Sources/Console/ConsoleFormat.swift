import Foundation

/// How the console writes times and durations: UTC, to the minute or second, unambiguous
/// (ISO 8601 order) whatever the browser's locale.
enum ConsoleFormat {
    static func time(_ date: Date?) -> String {
        guard let date else { return "—" }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss 'UTC'"
        return formatter.string(from: date)
    }

    static func duration(_ seconds: TimeInterval) -> String {
        let total = Int(seconds)
        let (days, hours, minutes) = (total / 86_400, total % 86_400 / 3600, total % 3600 / 60)
        if days > 0 { return "\(days) d \(hours) h" }
        if hours > 0 { return "\(hours) h \(minutes) min" }
        if minutes > 0 { return "\(minutes) min \(total % 60) s" }
        return "\(total) s"
    }

    static func milliseconds(_ seconds: Double) -> String {
        seconds < 1 ? "\(Int((seconds * 1000).rounded())) ms" : String(format: "%.1f s", seconds)
    }

    /// A size in bytes as people read it (binary units, one decimal).
    static func bytes(_ count: Int64?) -> String {
        guard let count else { return "—" }
        let units = ["bytes", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(count), unit = 0
        while value >= 1024, unit < units.count - 1 { value /= 1024; unit += 1 }
        return unit == 0 ? "\(count) bytes" : "\(String(format: "%.1f", value)) \(units[unit])"
    }
}
