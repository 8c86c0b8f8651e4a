import Foundation

/// Typed access to environment variables with one-line error messages that name the variable.
/// It reads only names listed in `Setting`, so the list of settings is complete by construction.
struct EnvironmentReader {
    private let values: [String: String]

    init(_ values: [String: String]) { self.values = values }

    /// The value, or nil when unset or empty: `FOO=` in a compose file means "not configured".
    func string(_ setting: Setting) -> String? {
        guard let value = values[setting.name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        return value
    }

    func integer(_ setting: Setting, default fallback: Int, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        try optionalInteger(setting, in: range) ?? fallback
    }

    func optionalInteger(_ setting: Setting, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int? {
        guard let text = string(setting) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw ConfigurationError(
                "\(setting.name) must be an integer between \(range.lowerBound) and \(range.upperBound) (got \"\(text)\")"
            )
        }
        return value
    }

    func seconds(_ setting: Setting, default fallback: Double) throws(ConfigurationError) -> Double {
        try optionalSeconds(setting) ?? fallback
    }

    /// A duration in seconds; fractions allowed ("0.5").
    func optionalSeconds(_ setting: Setting) throws(ConfigurationError) -> Double? {
        guard let text = string(setting) else { return nil }
        guard let value = Double(text), value.isFinite, value > 0, value <= 86_400 else {
            throw ConfigurationError("\(setting.name) must be a number of seconds greater than 0 and at most 86400 (got \"\(text)\")")
        }
        return value
    }
}
