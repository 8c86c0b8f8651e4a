import Domain

extension JSONRequestBody {
    /// `avatar_hash` of a profile change: nil when absent, `.some(nil)` for JSON null (clears
    /// the avatar), else the lowercased hash. Whether it names a stored image is checked by the
    /// store when it writes (`UserStore.unknownAvatar`, 422 `unknown_avatar`).
    mutating func avatarHash(errors: inout [FieldError]) -> String?? {
        guard let sent = text("avatar_hash", maximum: 64, nullable: true) else { return nil }
        guard let hash = sent else { return .some(nil) }
        return .some(UserRules.checkAvatarHash(hash, errors: &errors))
    }
}
