import HTTPServer
import Logging
import Synchronization
import Testing

/// `DeferredMetadataLogHandler`: the logger's metadata reaches the wrapped handler with each
/// line, merged as StreamLogHandler merges it, and setting a key never touches the wrapped
/// handler (that is what made StreamLogHandler render its text per request).
@Suite struct DeferredMetadataLogHandlerTests {
    final class Recorder: Sendable {
        let lines = Mutex<[Logger.Metadata?]>([])
        let metadataSets = Mutex(0)
    }

    struct Inner: LogHandler {
        let recorder: Recorder
        var logLevel: Logger.Level = .info
        var metadata: Logger.Metadata = [:]
        var metadataProvider: Logger.MetadataProvider?

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set {
                recorder.metadataSets.withLock { $0 += 1 }
                metadata[key] = newValue
            }
        }

        func log(event: LogEvent) {
            recorder.lines.withLock { $0.append(event.metadata) }
        }
    }

    @Test func metadataTravelsWithEachLineInStreamLogHandlersOrder() throws {
        let recorder = Recorder()
        let provider = Logger.MetadataProvider { ["shared": "provider", "trace": "t1"] }
        var logger = Logger(label: "test") { _ in
            DeferredMetadataLogHandler(Inner(recorder: recorder, metadataProvider: provider))
        }
        logger[metadataKey: "request_id"] = "r1"
        logger[metadataKey: "shared"] = "handler"
        logger[metadataKey: "user_id"] = "u1"
        #expect(recorder.metadataSets.withLock { $0 } == 0)
        #expect(logger[metadataKey: "user_id"] == "u1")

        logger.info("request", metadata: ["status": "200", "user_id": "line"])
        logger.debug("below the level")
        logger.logLevel = .debug
        logger[metadataKey: "shared"] = nil
        logger.debug("plain")

        let lines = recorder.lines.withLock { $0 }
        try #require(lines.count == 2)
        // The provider wins over the handler's metadata, the line's own over both.
        #expect(lines[0] == ["request_id": "r1", "shared": "provider", "trace": "t1", "user_id": "line", "status": "200"])
        #expect(lines[1] == ["request_id": "r1", "shared": "provider", "trace": "t1", "user_id": "u1"])
    }

    @Test func aLineWithNoMetadataAtAllCarriesNone() {
        let recorder = Recorder()
        let logger = Logger(label: "test") { _ in DeferredMetadataLogHandler(Inner(recorder: recorder)) }
        logger.info("bare")
        #expect(recorder.lines.withLock { $0 } == [nil])
    }
}
