import Foundation
import Logging

/// Writes one JSON object per line to standard error: `{"ts","level","label","msg",...metadata}`.
/// Log collectors (docker, journald, Loki) parse these without regexes.
struct JSONLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    init(label: String) { self.label = label }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var fields: [String: Any] = [:]
        for (key, value) in metadata { fields[key] = Self.json(value) }
        for (key, value) in metadataProvider?.get() ?? [:] { fields[key] = Self.json(value) }
        for (key, value) in event.metadata ?? [:] { fields[key] = Self.json(value) }
        if let error = event.error { fields["error"] = String(describing: error) }
        fields["ts"] = Self.timestamp()
        fields["level"] = event.level.rawValue
        fields["label"] = label
        fields["msg"] = event.message.description
        guard var line = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        line.append(0x0a)
        // One write per line keeps lines whole when several threads log at once.
        FileHandle.standardError.write(line)
    }

    private static func json(_ value: Logger.MetadataValue) -> Any {
        switch value {
        case .string(let string): string
        // Numbers (status, duration_ms) stay numbers, so log queries can compare them.
        case .stringConvertible(let convertible as Int): convertible
        case .stringConvertible(let convertible as Double) where convertible.isFinite: convertible
        case .stringConvertible(let convertible): convertible.description
        case .array(let values): values.map(json)
        case .dictionary(let dictionary): dictionary.mapValues(json)
        }
    }

    private static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
            Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
            Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), Int(now.tv_nsec / 1_000_000)
        )
    }
}
