import Foundation

/// contract §2 for notes and subtasks, and their field validation, as pure functions. The SQL in
/// `Store` applies the same rules inside its queries; these decide what a fetched row allows.
public enum ChildRules {
    /// Notes are free text; 10 000 characters is several pages, far past any real note, and
    /// keeps one row (and one sync page) bounded.
    public static let noteContentMaximumLength = 10_000
    /// A subtask is one checklist line.
    public static let subtaskTitleMaximumLength = 500
    /// `subtasks.position` is a PostgreSQL integer.
    public static let positionMaximum = Int(Int32.max)

    /// Only a note's author edits or deletes it; admins change everything (contract §2), including
    /// other people's notes — the edit then stamps the admin as `edited_by`.
    public static func mayChangeNote(authorID: UUID, callerID: UUID, callerIsAdmin: Bool) -> Bool {
        callerIsAdmin || authorID == callerID
    }

    /// Note content is kept exactly as written (line breaks and indentation are the author's),
    /// but must contain something other than whitespace.
    public static func checkNoteContent(_ content: String, field: String = "content") -> FieldError? {
        if content.allSatisfy(\.isWhitespace) {
            return FieldError(field: field, code: .blank, message: "Must not be empty.")
        }
        if content.unicodeScalars.count > noteContentMaximumLength {
            return FieldError(field: field, code: .tooLong,
                              message: "Must be at most \(noteContentMaximumLength) characters long.")
        }
        return nil
    }

    /// The trimmed title; nil after appending the problem to `errors`.
    public static func checkSubtaskTitle(_ title: String, field: String = "title", errors: inout [FieldError]) -> String? {
        let trimmed = title.trimmingWhitespace()
        if trimmed.isEmpty {
            errors.append(FieldError(field: field, code: .blank, message: "Must not be empty."))
            return nil
        }
        if trimmed.unicodeScalars.count > subtaskTitleMaximumLength {
            errors.append(FieldError(field: field, code: .tooLong,
                                     message: "Must be at most \(subtaskTitleMaximumLength) characters long."))
            return nil
        }
        return trimmed
    }

    /// A position from JSON (a number): an integer from 0 to `positionMaximum`.
    public static func checkPosition(_ value: Double, field: String = "position", errors: inout [FieldError]) -> Int? {
        guard value.rounded() == value, value >= 0, value <= Double(positionMaximum) else {
            errors.append(FieldError(field: field, code: .invalidValue,
                                     message: "Must be an integer from 0 to \(positionMaximum)."))
            return nil
        }
        return Int(value)
    }

    /// The parent type of a note (`task`, `activity`, `listing`) or subtask (`task`, `activity`).
    public static func checkParentType(_ text: String, forSubtask: Bool, field: String = "parent_type",
                                       errors: inout [FieldError]) -> ParentType? {
        guard let type = ParentType(rawValue: text), !forSubtask || type.canHaveSubtasks else {
            let allowed = forSubtask ? "task or activity" : "task, activity or listing"
            errors.append(FieldError(field: field, code: .invalidValue, message: "Must be \(allowed)."))
            return nil
        }
        return type
    }
}
