import Foundation
@testable import dispatchd

/// Just enough reading of the deployment files (Dockerfile, docker-compose.yml, .env.example)
/// and of dispatchd's configuration source to check them against each other. Line-based on
/// purpose: the files are ours and simple, and the test needs no YAML library.
enum DeploymentFiles {
    static func text(_ relativePath: String) throws -> String {
        try String(contentsOfFile: ProjectPaths.root + "/" + relativePath, encoding: .utf8)
    }

    static func matches(_ pattern: String, in text: String, group: Int = 1) -> [String] {
        guard let regex = try? NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines]) else { return [] }
        let range = NSRange(text.startIndex..., in: text)
        return regex.matches(in: text, range: range).compactMap { match in
            Range(match.range(at: group), in: text).map { String(text[$0]) }
        }
    }

    /// The environment variables `dispatchd` reads: `Setting`, the list `EnvironmentReader` takes.
    static func configurationVariables() throws -> Set<String> {
        Set(Setting.allCases.map(\.name))
    }

    /// The default PORT in `Configuration.load`.
    static func defaultPort() throws -> Int? {
        matches(#"integer\(\.port, default: ([0-9]+)"#, in: try text("Sources/dispatchd/Configuration.swift")).first.flatMap { Int($0) }
    }

    /// The lines nested below `lines[start]` (a key at `indent` spaces): everything up to the
    /// next line indented `indent` or less, skipping blanks and comments.
    static func block(_ lines: [Substring], after start: Int, indent: Int) -> [Substring] {
        var result: [Substring] = []
        for line in lines[(start + 1)...] {
            let trimmed = line.drop { $0 == " " }
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            if line.count - trimmed.count <= indent { break }
            result.append(line)
        }
        return result
    }

    /// The lines of a compose service's section (`  name:`), or nil when absent.
    static func composeService(_ name: String) throws -> [Substring]? {
        let lines = try text("docker-compose.yml").split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0 == "  \(name):" }) else { return nil }
        return block(lines, after: start, indent: 2)
    }

    /// The keys of `key:` directly inside a service section (`    key:` then `      NAME: …`).
    static func composeKeys(in service: [Substring], section: String) -> [String] {
        guard let start = service.firstIndex(where: { $0 == "    \(section):" }) else { return [] }
        return block(Array(service), after: start - service.startIndex, indent: 4).compactMap { line in
            let trimmed = line.drop { $0 == " " }
            guard line.count - trimmed.count == 6, let colon = trimmed.firstIndex(of: ":") else { return nil }
            return String(trimmed[..<colon])
        }
    }

    /// `${NAME}`, `${NAME:-x}`, `${NAME:?x}` in the compose file (not `$${…}`, which the
    /// container's shell expands).
    static func composeInterpolatedVariables() throws -> Set<String> {
        Set(matches(#"(?<!\$)\$\{([A-Z0-9_]+)"#, in: try text("docker-compose.yml")))
    }

    static func envExampleVariables() throws -> Set<String> {
        Set(matches(#"^([A-Z0-9_]+)="#, in: try text(".env.example")))
    }

    /// `NAME: value` pairs directly inside a service's `environment:` section.
    static func composeEnvironment(in service: [Substring]) -> [String: String] {
        guard let start = service.firstIndex(where: { $0 == "    environment:" }) else { return [:] }
        var pairs: [String: String] = [:]
        for line in block(Array(service), after: start - service.startIndex, indent: 4) {
            let trimmed = line.drop { $0 == " " }
            guard line.count - trimmed.count == 6, let colon = trimmed.firstIndex(of: ":") else { continue }
            pairs[String(trimmed[..<colon])] = trimmed[trimmed.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return pairs
    }

    /// The value of a one-line `key: value` directly inside a service (`    key: value`).
    static func composeValue(in service: [Substring], key: String) -> String? {
        service.first { $0.hasPrefix("    \(key): ") }.map { String($0.dropFirst(key.count + 6)) }
    }

    /// The value of `NAME=` in .env.example, and whether a comment explains its block (the
    /// lines above it up to a blank line).
    static func envExampleEntry(_ name: String) throws -> (value: String, commented: Bool)? {
        let lines = try text(".env.example").split(separator: "\n", omittingEmptySubsequences: false)
        guard let index = lines.firstIndex(where: { $0.hasPrefix(name + "=") }) else { return nil }
        var commented = false
        for line in lines[..<index].reversed() {
            if line.isEmpty { break }
            if line.hasPrefix("#") { commented = true; break }
        }
        return (String(lines[index].dropFirst(name.count + 1)), commented)
    }

    /// `ENV A=1 \ B=2` (continuation lines included) in the runtime stage.
    static func dockerfileEnvVariables() throws -> Set<String> {
        let dockerfile = try text("Dockerfile").replacingOccurrences(of: "\\\n", with: " ")
        let envLines = matches(#"^ENV (.*)$"#, in: dockerfile)
        return Set(envLines.flatMap { matches(#"([A-Z0-9_]+)="#, in: $0) })
    }

    /// Sources of `COPY` lines that copy from the build context (not `--from=` a stage).
    static func dockerfileCopySources() throws -> [String] {
        matches(#"^COPY (?!--from)(.*)$"#, in: try text("Dockerfile")).flatMap { line in
            line.split(separator: " ").dropLast().map(String.init)
        }
    }
}
