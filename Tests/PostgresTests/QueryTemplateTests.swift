import Foundation
import Postgres
import Testing

/// `PostgresQueryTemplate` reuses a statement's text built once: every query it hands out must
/// equal the one its builder would build for the same arguments.
@Suite struct QueryTemplateTests {
    /// Arguments bound several times and in any order, around constant binds of the same type.
    static let build: @Sendable ([UUID]) -> PostgresQuery = { arguments in
        let constant = UUID(uuidString: "0123abcd-abcd-4ef0-89ab-cdefabcdef01") ?? UUID()
        let fragment: PostgresQuery = "(a = \(arguments[0]) OR b = \(arguments[0]) OR c = \(constant))"
        return "SELECT 1 WHERE \(arguments[1]) = x AND \(fragment) AND y = \(arguments[0]) AND z = \(7)"
    }

    @Test func fillsEveryArgumentAndKeepsConstants() {
        let template = PostgresQueryTemplate(arguments: 2, Self.build)
        for _ in 0..<50 {
            let arguments = [UUID(), UUID()]
            #expect(template.query(arguments) == Self.build(arguments))
        }
        let same = UUID()
        #expect(template.query([same, same]) == Self.build([same, same]))
    }

    /// An argument spliced into the text (not bound) makes the text per call: the template
    /// must then build every statement anew instead of reusing the stand-in's text.
    @Test func rebuildsWhenAnArgumentIsInTheText() {
        let spliced: @Sendable ([UUID]) -> PostgresQuery = { arguments in
            "SELECT 1 WHERE id = '\(unsafeSQL: arguments[0].uuidString.lowercased())' AND b = \(arguments[0])"
        }
        let template = PostgresQueryTemplate(arguments: 1, spliced)
        let argument = UUID()
        #expect(template.query([argument]) == spliced([argument]))
    }
}
