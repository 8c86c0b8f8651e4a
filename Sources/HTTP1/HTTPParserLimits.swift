/// Size limits the parser enforces while reading, with nginx-like defaults.
public struct HTTPParserLimits: Sendable, Equatable {
    /// Longest request line (method SP target SP version), excluding CRLF → 414 past it.
    public var maxRequestLineBytes: Int = 8 * 1024
    /// Longest header section (all field lines with their CRLFs) → 431 past it.
    public var maxHeaderBytes: Int = 32 * 1024
    /// Most header fields → 431 past it.
    public var maxHeaderCount: Int = 100
    /// Largest body (after de-chunking) → 413 past it.
    public var maxBodyBytes: Int = 1024 * 1024

    public init(maxRequestLineBytes: Int = 8 * 1024, maxHeaderBytes: Int = 32 * 1024,
                maxHeaderCount: Int = 100, maxBodyBytes: Int = 1024 * 1024) {
        self.maxRequestLineBytes = maxRequestLineBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxBodyBytes = maxBodyBytes
    }
}
