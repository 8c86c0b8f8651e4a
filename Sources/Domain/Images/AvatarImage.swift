/// What an avatar upload must be: a complete, structurally valid PNG or JPEG and nothing else.
///
/// Magic bytes alone let polyglots through: a PNG signature followed by HTML was stored and
/// served. So the file is walked to its end — PNG chunk by chunk (lengths, CRCs, IHDR first,
/// IEND last), JPEG segment by segment (SOI, a frame header, scans, EOI last) — and any byte
/// after the image's own end is refused. Pixel data is not decoded: bytes inside valid chunks
/// or scans (and text chunks, which may hold anything) stay; they are inert when served as
/// `image/png` / `image/jpeg` with `nosniff`, which every response carries.
public enum AvatarImage {
    public enum Format: String, Sendable {
        case png = "image/png"
        case jpeg = "image/jpeg"
    }

    public enum Problem: Error, Equatable, Sendable {
        /// Neither PNG's signature nor JPEG's SOI.
        case notAnImage
        /// The file starts like one but is not a well-formed image (the reason, for the message).
        case malformed(String)
    }

    /// Each side at most this many pixels: far above any avatar, far below decoder bombs.
    public static let maxDimension = 10_000

    /// The format the first bytes announce (PNG signature, JPEG SOI), nil for anything else.
    public static func sniff(_ bytes: [UInt8]) -> Format? {
        if bytes.starts(with: PNGStructure.signature) { return .png }
        if bytes.starts(with: [0xFF, 0xD8]) { return .jpeg }
        return nil
    }

    /// The format of `bytes` once the whole file has been walked, or the problem that makes it
    /// unacceptable.
    public static func validate(_ bytes: [UInt8]) throws(Problem) -> Format {
        guard let format = sniff(bytes) else { throw .notAnImage }
        switch format {
        case .png: try PNGStructure.validate(bytes)
        case .jpeg: try JPEGStructure.validate(bytes)
        }
        return format
    }
}
