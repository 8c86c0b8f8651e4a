/// Failures of the credential primitives. None of them carries secret material.
public enum CredentialsError: Error, Equatable, Sendable {
    /// The operating system's random source failed; no token or salt can be made safely.
    case randomUnavailable
    /// OpenSSL refused to derive a key (usually: parameters need more memory than allowed).
    case keyDerivationFailed
    /// A stored password hash is not in a format this server understands.
    case malformedHash
    /// An access token that is not three base64url parts of JSON, or lacks required claims.
    case tokenMalformed
    /// An access token whose header names another algorithm than HS256 (including `none`).
    case tokenAlgorithmUnsupported
    /// An access token whose signature does not match (tampered, or signed with another secret).
    case tokenSignatureInvalid
    /// An access token past its `exp`.
    case tokenExpired
    /// OpenSSL refused to seal a token (`TokenSealer`).
    case sealingFailed
    /// A provider key file (APNs `.p8`, a service account's key) that is not a PEM private key
    /// of a supported kind (P-256 or RSA).
    case signingKeyInvalid
    /// OpenSSL refused to sign with a provider key.
    case signingFailed
}
