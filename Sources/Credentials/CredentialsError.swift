/// Failures of the credential primitives. None of them carries secret material.
public enum CredentialsError: Error, Equatable, Sendable {
    /// The operating system's random source failed; no token or salt can be made safely.
    case randomUnavailable
    /// OpenSSL refused to derive a key (usually: parameters need more memory than allowed).
    case keyDerivationFailed
    /// A stored password hash is not in a format this server understands.
    case malformedHash
}
