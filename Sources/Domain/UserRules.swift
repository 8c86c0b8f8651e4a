import Foundation

/// Validation rules for user fields, shared by every route that accepts them.
public enum UserRules {
    public static let passwordMinimumLength = 10
    /// Bounds the KDF's input and the request size; passphrases stay comfortably possible.
    public static let passwordMaximumLength = 1024
    public static let nameMaximumLength = 200
    public static let emailMaximumLength = 254

    /// Problems with `password`, or nil when acceptable. Lengths count Unicode code points, as
    /// JSON Schema's `minLength`/`maxLength` in openapi.yaml do (so clients validating against
    /// the schema agree with the server), and so the maximum bounds the KDF input: a grapheme
    /// count would let a few "characters" carry kilobytes of combining marks.
    public static func checkPassword(_ password: String, field: String = "password") -> FieldError? {
        if password.unicodeScalars.count < passwordMinimumLength {
            return FieldError(field: field, code: .tooShort,
                              message: "Must be at least \(passwordMinimumLength) characters long.")
        }
        if password.unicodeScalars.count > passwordMaximumLength {
            return FieldError(field: field, code: .tooLong,
                              message: "Must be at most \(passwordMaximumLength) characters long.")
        }
        if password.allSatisfy(\.isWhitespace) {
            return FieldError(field: field, code: .blank, message: "Must not consist only of whitespace.")
        }
        return nil
    }

    /// The trimmed name; nil after appending the problem to `errors`. The maximum applies to
    /// the name as sent, in code points (JSON Schema's `maxLength`), so a value the schema
    /// rejects is never accepted because trimming shortened it.
    public static func checkName(_ name: String, field: String = "name", errors: inout [FieldError]) -> String? {
        let trimmed = name.trimmingWhitespace()
        if trimmed.isEmpty {
            errors.append(FieldError(field: field, code: .blank, message: "Must not be empty."))
            return nil
        }
        if name.unicodeScalars.count > nameMaximumLength {
            errors.append(FieldError(field: field, code: .tooLong,
                                     message: "Must be at most \(nameMaximumLength) characters long."))
            return nil
        }
        return trimmed
    }

    /// The trimmed email; nil after appending the problem to `errors`. Deliberately loose (something@something.tld
    /// without spaces): the real check is whether mail arrives, not a regular expression.
    public static func checkEmail(_ email: String, field: String = "email", errors: inout [FieldError]) -> String? {
        let trimmed = email.trimmingWhitespace()
        let invalid = FieldError(field: field, code: .invalid, message: "Must be an email address like name@example.com.")
        guard trimmed.unicodeScalars.count <= emailMaximumLength, !trimmed.contains(where: \.isWhitespace),
              let at = trimmed.lastIndex(of: "@"), at != trimmed.startIndex
        else { errors.append(invalid); return nil }
        let domain = trimmed[trimmed.index(after: at)...]
        guard let dot = domain.lastIndex(of: "."), dot != domain.startIndex, domain.index(after: dot) != domain.endIndex
        else { errors.append(invalid); return nil }
        return trimmed
    }

    /// An avatar hash as stored: 64 hex digits of a SHA-256 (lowercased); nil after appending
    /// the problem. Whether an image with this hash is stored is the store's check
    /// (`UserStore.unknownAvatar`), made in the same statement as the write.
    public static func checkAvatarHash(_ hash: String, field: String = "avatar_hash", errors: inout [FieldError]) -> String? {
        let lowered = hash.lowercased()
        guard lowered.utf8.count == 64, lowered.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            errors.append(FieldError(field: field, code: .invalid, message: "Must be the 64-hex-digit SHA-256 of a stored image, or null."))
            return nil
        }
        return lowered
    }

    /// An admin cannot lock themselves out; another admin has to do it. The rule of `/v1`,
    /// `/rest/v1` and the console alike; `deactivationField` names the deactivation key sent.
    public static func selfLockout(target: UUID, admin: UUID, userType: UserType?, deactivated: Bool?,
                                   deactivationField: String = "deactivated") -> [FieldError] {
        guard target == admin else { return [] }
        var errors: [FieldError] = []
        if deactivated == true {
            errors.append(FieldError(field: deactivationField, code: .selfReference, message: "You cannot deactivate yourself."))
        }
        if let userType, userType != .admin {
            errors.append(FieldError(field: "user_type", code: .selfReference, message: "You cannot remove your own admin role."))
        }
        return errors
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var slice = Substring(self)
        while let first = slice.first, first.isWhitespace { slice.removeFirst() }
        while let last = slice.last, last.isWhitespace { slice.removeLast() }
        return String(slice)
    }
}
