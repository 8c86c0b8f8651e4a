import Foundation
import HTTPServer
import JSON
import Testing

/// The strict pre-check of JSON bodies: UTF-8 only, RFC 8259 grammar, each key once per object.
@Suite struct StrictJSONTests {
    static let accepted: [String] = [
        #"{}"#, #"[]"#, #"{"a":1,"b":[1,2,{"a":1}],"c":{"a":{"a":null}}}"#,
        #" {"a" : "x\"y", "a\"" : true } "#,  // a key and a value containing escaped quotes
        #"{"\"a":1,"a":2}"#,  // `"a` and `a` differ
        #"{"A":1,"a":2}"#, #"{"a":{"b":1},"b":{"a":1}}"#,  // same keys in sibling objects
        #"[{"a":1},{"a":2}]"#,  // the same key in two objects of one array
        #"{"x":"{\"a\":1,\"a\":2}"}"#,  // duplicate "keys" inside a string are text
        #"{"emoji":"\ud83d\ude00","é":"ü"}"#, #"{"n":[0,-0,1.5,-2e10,3E+2,4e-3]}"#, "\"text\"", "12", "null",
    ]

    @Test(arguments: accepted)
    func wellFormedUTF8JSONPasses(_ text: String) throws {
        try StrictJSON.check(Array(text.utf8))
        // The decoder agrees it is JSON: the check is never stricter about the grammar.
        _ = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }

    static let duplicates: [(String, String)] = [
        (#"{"a":1,"a":2}"#, "a"),
        (#"{"a":1,"\u0061":2}"#, "a"),  // equal only after unescaping
        (#"{"\u0041b":1,"Ab":2}"#, "Ab"),
        (#"{"a\"b":1,"a\u0022b":2}"#, "a\"b"),  // escaped quote, two spellings
        (#"{"x":{"y":[{"k":1,"z":0,"k":2}]}}"#, "k"),  // nested three levels down
        (#"{"outer":1,"inner":{"q":1},"outer":2}"#, "outer"),
        (#"{"😀":1,"\ud83d\ude00":2}"#, "😀"),  // surrogate pair escape of the same scalar
        ("{\"e\u{0301}\":1,\"\u{00E9}\":2}", "é"),  // canonically equal: one Dictionary key
    ]

    @Test(arguments: duplicates)
    func duplicateKeysAreRefusedAtAnyDepth(_ text: String, _ key: String) {
        #expect(throws: StrictJSON.Problem.duplicateKey(key)) { try StrictJSON.check(Array(text.utf8)) }
    }

    static let notUTF8: [[UInt8]] = [
        [0xFF, 0xFE] + Array("{}".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] },  // UTF-16LE with BOM
        [0xFE, 0xFF] + Array("{}".utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] },  // UTF-16BE with BOM
        Array("{}".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] },  // UTF-16LE, no BOM
        [0xEF, 0xBB, 0xBF] + Array("{}".utf8),  // UTF-8 with a BOM
        Array(#"{"a":""#.utf8) + [0xC3] + Array(#""}"#.utf8),  // truncated sequence
        Array(#"{"a":""#.utf8) + [0xC0, 0xAF] + Array(#""}"#.utf8),  // overlong "/"
        Array(#"{"a":""#.utf8) + [0xED, 0xA0, 0x80] + Array(#""}"#.utf8),  // encoded surrogate
        Array(#"{"a":""#.utf8) + [0xF4, 0x90, 0x80, 0x80] + Array(#""}"#.utf8),  // above U+10FFFF
        Array(#"{"a":"x"}"#.utf8) + [0xFF],
        Array(#"{"a":"#.utf8) + [0x00] + Array("1}".utf8),
    ]

    @Test(arguments: notUTF8)
    func textThatIsNotUTF8IsRefused(_ bytes: [UInt8]) {
        #expect(throws: StrictJSON.Problem.notUTF8) { try StrictJSON.check(bytes) }
    }

    static let malformed: [String] = [
        "", " ", "{", "}", "[", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "[1,]", "{,}", "{\"a\" 1}", "{a:1}", "{'a':1}",
        "[01]", "[1.]", "[.5]", "[-]", "[1e]", "[+1]", "[NaN]", "[tru]", "[nul]", "{\"a\":1}x", "{} {}",
        "[\"\\x\"]", "[\"\\u12\"]", "[\"\\u12G4\"]", "[\"\\ud800\"]", "[\"\\udc00\"]", "[\"\\ud800\\u0041\"]",
        "[\"a\nb\"]", "[\"a\tb\"]", "\"unterminated", "{\"a\":1", "{\"a\\\":1}",
    ]

    @Test(arguments: malformed)
    func malformedJSONIsRefused(_ text: String) {
        #expect(throws: StrictJSON.Problem.malformed) { try StrictJSON.check(Array(text.utf8)) }
    }

    @Test func nestingIsBounded() throws {
        let deepest = String(repeating: "[", count: StrictJSON.maxDepth) + String(repeating: "]", count: StrictJSON.maxDepth)
        try StrictJSON.check(Array(deepest.utf8))
        let tooDeep = String(repeating: "{\"a\":", count: StrictJSON.maxDepth + 1) + "1" + String(repeating: "}", count: StrictJSON.maxDepth + 1)
        #expect(throws: StrictJSON.Problem.tooDeep) { try StrictJSON.check(Array(tooDeep.utf8)) }
        // Far past the limit (a stack overflow for a naive recursive parser): refused, no crash.
        let hostile = [UInt8](repeating: UInt8(ascii: "["), count: 500_000)
        #expect(throws: StrictJSON.Problem.tooDeep) { try StrictJSON.check(hostile) }
    }

    /// Every prefix and single-byte mutation of valid bodies: the check answers (no crash, no
    /// hang) and never passes text Foundation refuses as JSON.
    @Test func everyPrefixAndMutationAnswersConsistently() {
        var generator = SystemRandomNumberGenerator()
        for text in Self.accepted + Self.duplicates.map(\.0) {
            let bytes = Array(text.utf8)
            var inputs = (0...bytes.count).map { Array(bytes.prefix($0)) }
            for _ in 0..<200 where !bytes.isEmpty {
                var mutated = bytes
                mutated[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                inputs.append(mutated)
            }
            for input in inputs {
                if (try? StrictJSON.check(input)) != nil {
                    #expect((try? JSONSerialization.jsonObject(with: Data(input), options: [.fragmentsAllowed])) != nil,
                            "\(input)")
                }
            }
        }
    }
}
