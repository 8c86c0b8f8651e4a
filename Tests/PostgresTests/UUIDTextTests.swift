import Foundation
import Postgres
import Testing

/// `UUIDText` replaces Foundation's UUID formatter and parser on every query and token: it must
/// print and accept exactly what they do.
@Suite struct UUIDTextTests {
    @Test func formatsAndParsesLikeFoundation() {
        for _ in 0..<500 {
            let uuid = UUID()
            let text = UUIDText.lowercase(uuid)
            #expect(text == uuid.uuidString.lowercased())
            #expect(UUIDText.parse(text) == uuid)
            #expect(UUIDText.parse(uuid.uuidString) == uuid)
        }
        let edges = ["00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff",
                     "0123abcd-ABCD-4ef0-89Ab-cdefABCDEF01"]
        for text in edges {
            #expect(UUIDText.parse(text) == UUID(uuidString: text))
            #expect(UUIDText.parse(text) != nil)
        }
    }

    @Test func refusesWhatFoundationRefuses() {
        let bad = ["", "0123abcd-abcd-4ef0-89ab-cdefabcdef0", "0123abcd-abcd-4ef0-89ab-cdefabcdef012",
                   "0123abcdaabcd-4ef0-89ab-cdefabcdef01", "0123abcd-abcd-4ef0-89ab_cdefabcdef01",
                   "0123abcg-abcd-4ef0-89ab-cdefabcdef01", "0123abcdabcd4ef089abcdefabcdef01",
                   "{0123abcd-abcd-4ef0-89ab-cdefabcdef01}",
                   "0123abcd-abcd-4ef0-89ab-cdefabcdef0é", "0123abcd-abcd-4ef0-89ab-cdefabcdef\u{0}1"]
        for text in bad {
            #expect(UUIDText.parse(text) == nil, "\(text)")
            #expect(UUID(uuidString: text) == nil, "\(text)")
        }
        // Stricter than Foundation on purpose: its sscanf skips blanks before a group's digits.
        #expect(UUIDText.parse(" 123abcd-abcd-4ef0-89ab-cdefabcdef01") == nil)
    }
}
