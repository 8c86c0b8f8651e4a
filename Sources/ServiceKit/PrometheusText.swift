/// Writes the Prometheus text exposition format (version 0.0.4): `# HELP`/`# TYPE` once per
/// family, then `name{label="value",…} number` samples.
package struct PrometheusText: Sendable {
    package static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    package private(set) var text = ""

    package init() {}

    package mutating func family(_ name: String, type: String, help: String) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    }

    package mutating func sample(_ name: String, _ labels: [(String, String)] = [], _ value: Double) {
        text += name
        if !labels.isEmpty {
            text += "{" + labels.map { "\($0.0)=\"\(Self.escape($0.1))\"" }.joined(separator: ",") + "}"
        }
        text += " " + Self.format(value) + "\n"
    }

    package mutating func sample(_ name: String, _ labels: [(String, String)] = [], _ value: Int) {
        sample(name, labels, Double(value))
    }

    /// Label values escape backslash, double quote and newline.
    package static func escape(_ value: String) -> String {
        var result = ""
        for character in value {
            switch character {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n": result += "\\n"
            default: result.append(character)
            }
        }
        return result
    }

    /// Integers without a fraction (`3`, not `3.0`); `+Inf` for infinity.
    package static func format(_ value: Double) -> String {
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return String(value)
    }
}
