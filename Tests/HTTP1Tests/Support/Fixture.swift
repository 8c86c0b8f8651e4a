import Foundation
import HTTP1
import Testing

/// One request-stream fixture from `Fixtures/*.http`.
///
/// Format (lines before `---` are directives, after it the raw input):
///
///     # free-text comment
///     limits: requestLine=32 headerBytes=64 headerCount=3 body=16   (optional)
///     repeat: 16                                                     (optional: input and expectations repeated)
///     expect: complete GET /path HTTP/1.1 headers=1 body=0 [trailers=N] [bodytext=...] [hdr:Name=Value]
///     expect: error invalid_method
///     expect: incomplete
///     ---
///     GET / HTTP/1.1\r\n
///
/// In the input, file line breaks are ignored (only escapes produce bytes): `\r`, `\n`, `\t`,
/// `\0`, `\\`, `\xHH`. The same escapes work in expectation values.
struct Fixture: Sendable, CustomTestStringConvertible {
    var name: String
    var limits: HTTPParserLimits
    var input: [UInt8]
    var expectations: [String]

    var testDescription: String { name }

    static func load(name: String, text: String) throws -> Fixture {
        var limits = HTTPParserLimits()
        var expectations: [String] = []
        var repeatCount = 1
        var inputLines: [Substring] = []
        var inInput = false
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if inInput { inputLines.append(rawLine); continue }
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line == "---" { inInput = true; continue }
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("expect:") {
                expectations.append(line.dropFirst("expect:".count).trimmingCharacters(in: .whitespaces))
            } else if line.hasPrefix("repeat:") {
                guard let n = Int(line.dropFirst("repeat:".count).trimmingCharacters(in: .whitespaces)) else {
                    throw FixtureError.malformed(name, line)
                }
                repeatCount = n
            } else if line.hasPrefix("limits:") {
                for pair in line.dropFirst("limits:".count).split(separator: " ") {
                    let kv = pair.split(separator: "=")
                    guard kv.count == 2, let value = Int(kv[1]) else { throw FixtureError.malformed(name, line) }
                    switch kv[0] {
                    case "requestLine": limits.maxRequestLineBytes = value
                    case "headerBytes": limits.maxHeaderBytes = value
                    case "headerCount": limits.maxHeaderCount = value
                    case "body": limits.maxBodyBytes = value
                    default: throw FixtureError.malformed(name, line)
                    }
                }
            } else {
                throw FixtureError.malformed(name, line)
            }
        }
        guard inInput, !expectations.isEmpty else { throw FixtureError.malformed(name, "missing --- or expect:") }
        var input: [UInt8] = []
        for line in inputLines { input += try unescape(String(line), fixture: name) }
        if repeatCount > 1 {
            // Only the request part repeats; a trailing `incomplete`/`error` stays last.
            input = Array(Array(repeating: input, count: repeatCount).joined())
            expectations = Array(Array(repeating: expectations, count: repeatCount).joined())
        }
        return Fixture(name: name, limits: limits, input: input, expectations: expectations)
    }

    static func unescape(_ text: String, fixture: String) throws -> [UInt8] {
        var out: [UInt8] = []
        var bytes = Array(text.utf8)[...]
        while let b = bytes.popFirst() {
            guard b == UInt8(ascii: "\\") else { out.append(b); continue }
            guard let e = bytes.popFirst() else { throw FixtureError.malformed(fixture, "dangling \\") }
            switch e {
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "0"): out.append(0x00)
            case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
            case UInt8(ascii: "x"):
                guard bytes.count >= 2, let v = UInt8(String(decoding: bytes.prefix(2), as: UTF8.self), radix: 16) else {
                    throw FixtureError.malformed(fixture, "bad \\x escape")
                }
                bytes = bytes.dropFirst(2)
                out.append(v)
            default: throw FixtureError.malformed(fixture, "unknown escape \\\(Character(UnicodeScalar(e)))")
            }
        }
        return out
    }
}

enum FixtureError: Error, CustomStringConvertible {
    case malformed(String, String)
    var description: String {
        switch self { case .malformed(let name, let detail): return "\(name): \(detail)" }
    }
}

enum FixtureLibrary {
    /// Every fixture plus any files that failed to load (a test asserts there are none).
    static let loaded: (fixtures: [Fixture], errors: [String]) = {
        guard let dir = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            return ([], ["Fixtures directory missing from the test bundle"])
        }
        var fixtures: [Fixture] = []
        var errors: [String] = []
        let files = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        for file in files.sorted() where file.hasSuffix(".http") {
            let name = String(file.dropLast(".http".count))
            do {
                let text = try String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)
                fixtures.append(try Fixture.load(name: name, text: text))
            } catch {
                errors.append("\(name): \(error)")
            }
        }
        return (fixtures, errors)
    }()

    static var all: [Fixture] { loaded.fixtures }
}
