import HTTPServer
import Logging

/// Installs the process-wide log handler once, before anything logs.
enum LoggingSetup {
    static func bootstrap(level: Logger.Level, format: LogFormat) {
        LoggingSystem.bootstrap { label in
            var handler: any LogHandler = switch format {
            case .json: JSONLogHandler(label: label)
            case .text: DeferredMetadataLogHandler(StreamLogHandler.standardError(label: label))
            }
            handler.logLevel = level
            return handler
        }
    }
}
