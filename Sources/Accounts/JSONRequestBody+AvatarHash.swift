import Domain
import RouteKit

extension JSONRequestBody {
    /// `avatar_hash` of a profile change: nil when absent, `.some(nil)` for JSON null (clears
    /// the avatar), else the lowercased hash. Whether it names a stored image is checked by the
    /// store when it writes (`UserStore.unknownAvatar`, 422 `unknown_avatar`).
    package func avatarHash(errors: inout [FieldError]) -> String?? {
        switch object["avatar_hash"] {
        case nil:
            return nil
        case .null?:
            return .some(nil)
        case .string(let hash)?:
            return .some(UserRules.checkAvatarHash(hash, errors: &errors))
        default:
            errors.append(FieldError(field: "avatar_hash", code: .invalidType, message: "Must be a string or null."))
            return .some(nil)
        }
    }
}
