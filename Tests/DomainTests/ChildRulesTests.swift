import Domain
import Foundation
import Testing

/// The pure note/subtask rules, as tables.
@Suite struct ChildRulesTests {
    @Test(arguments: [
        (author: true, admin: false, allowed: true),
        (author: false, admin: true, allowed: true),
        (author: true, admin: true, allowed: true),
        (author: false, admin: false, allowed: false),
    ])
    func noteChangeIsForTheAuthorOrAnAdmin(author: Bool, admin: Bool, allowed: Bool) {
        let authorID = UUID()
        let caller = author ? authorID : UUID()
        #expect(ChildRules.mayChangeNote(authorID: authorID, callerID: caller, callerIsAdmin: admin) == allowed)
    }

    @Test(arguments: [
        ("Call back", nil), ("  \n\t ", "blank"), ("", "blank"),
        (String(repeating: "é", count: 10_000), nil), (String(repeating: "x", count: 10_001), "too_long"),
    ] as [(String, String?)])
    func noteContentMustBeNonBlankAndBounded(content: String, code: String?) {
        #expect(ChildRules.checkNoteContent(content)?.code == code)
    }

    @Test func noteContentIsKeptAsWritten() {
        #expect(ChildRules.checkNoteContent("  indented\n") == nil)
    }

    @Test(arguments: [
        (" Sign ", "Sign", nil), ("   ", nil, "blank"),
        (String(repeating: "t", count: 501), nil, "too_long"), (String(repeating: "t", count: 500), String(repeating: "t", count: 500), nil),
    ] as [(String, String?, String?)])
    func subtaskTitleIsTrimmedNonBlankAndBounded(title: String, result: String?, code: String?) {
        var errors: [FieldError] = []
        #expect(ChildRules.checkSubtaskTitle(title, errors: &errors) == result)
        #expect(errors.first?.code == code)
    }

    @Test(arguments: [
        (0.0, 0 as Int?), (7.0, 7), (2_147_483_647.0, 2_147_483_647), (-1.0, nil), (1.5, nil), (2_147_483_648.0, nil),
        (Double.nan, nil), (Double.infinity, nil),
    ] as [(Double, Int?)])
    func positionIsANonNegativeInt32(value: Double, position: Int?) {
        var errors: [FieldError] = []
        #expect(ChildRules.checkPosition(value, errors: &errors) == position)
        #expect(errors.isEmpty == (position != nil))
    }

    @Test(arguments: [
        ("task", false, ParentType.task as ParentType?), ("listing", false, .listing), ("listing", true, nil),
        ("activity", true, .activity), ("Task", false, nil), ("house", false, nil),
    ] as [(String, Bool, ParentType?)])
    func parentTypeDependsOnTheChildKind(text: String, forSubtask: Bool, type: ParentType?) {
        var errors: [FieldError] = []
        #expect(ChildRules.checkParentType(text, forSubtask: forSubtask, errors: &errors) == type)
        #expect(errors.map(\.field) == (type == nil ? ["parent_type"] : []))
    }
}
