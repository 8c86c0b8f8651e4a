import Logging

/// A log handler whose logger metadata is kept here until a line is written, wrapped around
/// one that renders it eagerly (`dispatchd`'s text format: swift-log's `StreamLogHandler`).
///
/// Why: `StreamLogHandler` renders its whole metadata to text every time one key is set, and
/// every request sets two (`request_id` in its context, `user_id` once authenticated), about
/// 5,000 instructions each (bench/callgrind) for lines that, at the usual levels, are never
/// written. Here setting a key is one dictionary store, and the text is rendered per line
/// written. The line reads the same: the handler's metadata, then the metadata provider's,
/// then the line's own are merged in that order (a later one wins a shared key), as
/// `StreamLogHandler` merges them, and handed to `inner` as the line's metadata.
public struct DeferredMetadataLogHandler<Inner: LogHandler>: LogHandler {
    private var inner: Inner
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?

    public init(_ inner: Inner) {
        var inner = inner
        metadataProvider = inner.metadataProvider
        inner.metadataProvider = nil  // merged here, in order
        self.inner = inner
    }

    public var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get(), !provided.isEmpty {
            merged.merge(provided) { _, provided in provided }
        }
        if let own = event.metadata, !own.isEmpty {
            merged.merge(own) { _, own in own }
        }
        var event = event
        event.metadata = merged.isEmpty ? nil : merged
        inner.log(event: event)
    }
}
