import Domain
import Foundation
import HTTP1
import HTTPServer
import Store

/// JSON objects → validated note / subtask inputs, for the child routes and for a sync push's
/// records, so both validate identically: the same fields, checks and 422 answers.
enum ChildInputParser {
    /// The fields a body may carry: `allowed` are read, `ignored` are accepted and dropped.
    struct Fields: Sendable {
        var allowed: Set<String>
        var ignored: Set<String>

        func body(_ request: HTTPRequest) throws -> JSONRequestBody {
            try JSONRequestBody(request, allowed: allowed, ignored: ignored)
        }

        func body(_ object: [String: JSONValue]) -> JSONRequestBody {
            JSONRequestBody(object: object, allowed: allowed, ignored: ignored)
        }
    }

    static let noteCreation = Fields(allowed: ["id", "parent_type", "parent_id", "content"],
                                     ignored: ChildHTTP.ignoredOnWrite.union(["created_by", "edited_at", "edited_by"]))
    /// The parent and author are fixed at creation; sent back on an edit, they are ignored.
    static let noteChange = Fields(allowed: ["content"], ignored: ChildHTTP.ignoredOnWrite.union(
        ["created_by", "parent_type", "parent_id", "edited_at", "edited_by"]))
    static let subtaskCreation = Fields(allowed: ["id", "parent_type", "parent_id", "title", "completed", "position"],
                                        ignored: ChildHTTP.ignoredOnWrite)
    /// A subtask stays with its parent; parent fields sent back are ignored.
    static let subtaskChange = Fields(allowed: ["title", "completed", "position"],
                                      ignored: ChildHTTP.ignoredOnWrite.union(["parent_type", "parent_id"]))

    /// A new note, or a 422 with every field problem.
    static func newNote(_ body: inout JSONRequestBody) throws -> NoteStore.NewNote {
        let id = body.uuidField("id", required: false)
        let parentType = body.parentType(forSubtask: false)
        let parentID = body.uuidField("parent_id", required: true)
        let content = body.string("content", required: true)
        if let content { body.add(ChildRules.checkNoteContent(content)) }
        try body.finish()
        guard let parentType, let parentID, let content else { throw JSONRequestBody.validationFailed(body.errors) }
        return NoteStore.NewNote(id: id, parentType: parentType, parentID: parentID, content: content)
    }

    /// The new content of a note edit (nil: unchanged), or a 422.
    static func noteContent(_ body: inout JSONRequestBody) throws -> String? {
        let content = body.string("content", required: false)
        if let content { body.add(ChildRules.checkNoteContent(content)) }
        try body.finish()
        return content
    }

    /// A new subtask, or a 422 with every field problem.
    static func newSubtask(_ body: inout JSONRequestBody) throws -> SubtaskStore.NewSubtask {
        var errors: [FieldError] = []
        let id = body.uuidField("id", required: false)
        let parentType = body.parentType(forSubtask: true)
        let parentID = body.uuidField("parent_id", required: true)
        let title = body.string("title", required: true).flatMap { ChildRules.checkSubtaskTitle($0, errors: &errors) }
        let completed = body.bool("completed")
        let position = body.numberField("position").flatMap { ChildRules.checkPosition($0, errors: &errors) }
        errors.forEach { body.add($0) }
        try body.finish()
        guard let parentType, let parentID, let title else { throw JSONRequestBody.validationFailed(body.errors) }
        return SubtaskStore.NewSubtask(id: id, parentType: parentType, parentID: parentID, title: title,
                                       completed: completed, position: position)
    }

    /// The fields of a subtask edit, or a 422.
    static func subtaskChanges(_ body: inout JSONRequestBody) throws -> SubtaskStore.Changes {
        var errors: [FieldError] = []
        let title = body.string("title", required: false).flatMap { ChildRules.checkSubtaskTitle($0, errors: &errors) }
        let completed = body.bool("completed")
        let position = body.numberField("position").flatMap { ChildRules.checkPosition($0, errors: &errors) }
        errors.forEach { body.add($0) }
        try body.finish()
        return SubtaskStore.Changes(title: title, completed: completed, position: position)
    }
}
