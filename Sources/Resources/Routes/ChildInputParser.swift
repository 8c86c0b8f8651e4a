import Domain
import Foundation
import HTTP1
import HTTPServer
import JSON
import RouteKit
import Store

/// JSON objects → validated note / subtask inputs, for the child routes and for a sync push's
/// records, so both validate identically: the same fields, checks and 422 answers.
package enum ChildInputParser {
    /// The fields a body may carry: `allowed` are read, `ignored` are accepted and dropped.
    package struct Fields: Sendable {
        var allowed: Set<String>
        var ignored: Set<String>

        func body(_ request: HTTPRequest) throws -> JSONRequestBody {
            try JSONRequestBody(request, allowed: allowed, ignored: ignored)
        }

        func body(_ object: [String: JSONValue]) -> JSONRequestBody {
            JSONRequestBody(object: object, allowed: allowed, ignored: ignored)
        }
    }

    /// A create reads the writable and create-only columns; the server's are ignored.
    package static func creation(_ resource: Resource) -> Fields {
        Fields(allowed: resource.description.creatableKeys, ignored: resource.description.ignoredOnCreate)
    }

    /// An edit reads the writable columns; the parent and author, fixed at creation, and the
    /// server's columns are ignored when sent back.
    package static func change(_ resource: Resource) -> Fields {
        Fields(allowed: resource.description.writableKeys, ignored: resource.description.ignoredOnChange)
    }

    package static let noteCreation = creation(.notes)
    package static let noteChange = change(.notes)
    package static let subtaskCreation = creation(.subtasks)
    package static let subtaskChange = change(.subtasks)

    /// A new note, or a 422 with every field problem.
    package static func newNote(_ body: inout JSONRequestBody) throws -> NoteStore.NewNote {
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
    package static func noteContent(_ body: inout JSONRequestBody) throws -> String? {
        let content = body.string("content", required: false)
        if let content { body.add(ChildRules.checkNoteContent(content)) }
        try body.finish()
        return content
    }

    /// A new subtask, or a 422 with every field problem.
    package static func newSubtask(_ body: inout JSONRequestBody) throws -> SubtaskStore.NewSubtask {
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
    package static func subtaskChanges(_ body: inout JSONRequestBody) throws -> SubtaskStore.Changes {
        var errors: [FieldError] = []
        let title = body.string("title", required: false).flatMap { ChildRules.checkSubtaskTitle($0, errors: &errors) }
        let completed = body.bool("completed")
        let position = body.numberField("position").flatMap { ChildRules.checkPosition($0, errors: &errors) }
        errors.forEach { body.add($0) }
        try body.finish()
        return SubtaskStore.Changes(title: title, completed: completed, position: position)
    }
}
