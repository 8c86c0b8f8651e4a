import Accounts
import Domain
import Foundation
import HTTP1
import HTTPServer
import JSON
import RouteKit
import Store

/// Supabase Storage's object routes (`/storage/v1/object/…`) for the one public bucket,
/// `avatars`. Uploads and deletes need a signed-in user; downloads through
/// `/object/public/avatars/…` need nothing, not even the apikey (`SupabaseGateway`), so an
/// `<img>` can load the URL the client builds.
///
/// Rules (docs/app-developers/storage.md): anyone signed in may upload to a new name and becomes its owner;
/// only the owner or an admin may overwrite (`x-upsert: true` or `PUT`) or delete it. An
/// upload never touches `users.avatar_hash`: the app sets that with a profile update, which
/// checks the hash names a stored image.
enum StorageRoutes {
    static let buckets: Set<String> = ["avatars"]

    static func register(on router: inout Router, auth: AuthService) {
        let store = StorageObjectStore(pool: auth.pool)
        let pattern = "/storage/v1/object/{bucket}/{path...}"
        router.post(pattern) { request, context in
            let mode: StorageObjectStore.WriteMode = try upsertRequested(request) ? .upsert : .create
            return try upload(request, context, mode: mode, store: store, auth: auth)
        }
        router.put(pattern) { request, context in
            try upload(request, context, mode: .overwrite, store: store, auth: auth)
        }
        router.get(pattern) { request, context in
            _ = try auth.currentUser(context)
            return try StorageDownload.respond(request, at: try location(context), audience: .signedIn,
                                               store: store, avatars: auth.avatars)
        }
        router.delete(pattern) { _, context in
            let (bucket, name) = try location(context)
            let deleted = try store.delete(bucket: bucket, names: [name.description], by: try writer(context, auth))
            guard !deleted.isEmpty else { throw objectNotFound }
            return .response(try .json(["message": JSONValue.string("Successfully deleted")]))
        }
        router.delete("/storage/v1/object/{bucket}") { request, context in
            let bucket = try bucketName(context)
            let names = try prefixes(request)
            let deleted = try store.delete(bucket: bucket, names: names.map(\.description), by: try writer(context, auth))
            return .response(try .json(JSONValue.array(deleted.map(StorageJSON.fileObject))))
        }
    }

    /// The anonymous download route: registered in the router's anonymous group.
    static func registerPublic(on router: inout Router, auth: AuthService) {
        let store = StorageObjectStore(pool: auth.pool)
        router.get("/storage/v1/object/public/{bucket}/{path...}") { request, context in
            try StorageDownload.respond(request, at: try location(context), audience: .anyone,
                                        store: store, avatars: auth.avatars)
        }
    }

    static func upload(_ request: HTTPRequest, _ context: RequestContext, mode: StorageObjectStore.WriteMode,
                       store: StorageObjectStore, auth: AuthService) throws -> HandlerReply {
        let writer = try writer(context, auth)
        let (bucket, name) = try location(context)
        let image = try StorageUpload.image(request)
        if let promised = name.contentHash, promised != image.hash {
            throw DomainError(.badRequest, .contentHashMismatch,
                              "The name \(name) is a SHA-256 hex, but the file's SHA-256 is \(image.hash).",
                              hint: "Content-addressed names must carry the hash of their bytes.")
        }
        let id = try store.write(bucket: bucket, name: name.description, image: image, by: writer, mode: mode)
        let body: JSONValue = ["Key": .string("\(bucket)/\(name)"), "Id": .string(id.uuidString.lowercased())]
        return .response(try .json(body))
    }

    /// `x-upsert`: `true` or `false` (any case); absent means false.
    static func upsertRequested(_ request: HTTPRequest) throws -> Bool {
        guard let value = request.headers["x-upsert"] else { return false }
        switch value.trimmingASCIIWhitespace().lowercasedASCII() {
        case "true": return true
        case "false": return false
        default: throw DomainError.badRequest(.invalidParameter, "x-upsert must be true or false.")
        }
    }

    static func writer(_ context: RequestContext, _ auth: AuthService) throws -> StorageObjectStore.Writer {
        let user = try auth.currentUser(context)
        return .init(id: user.id, isAdmin: user.isAdmin)
    }

    static func bucketName(_ context: RequestContext) throws -> String {
        let bucket = try context.pathParameter("bucket")
        guard buckets.contains(bucket) else { throw DomainError(.notFound, .notFound, "Bucket not found") }
        return bucket
    }

    /// The bucket and the object name of the request's path.
    static func location(_ context: RequestContext) throws -> (bucket: String, name: StorageObjectName) {
        let bucket = try bucketName(context)
        // `{path...}`: the rest of the path, segments decoded and joined with "/".
        guard let name = StorageObjectName(try context.pathParameter("path")) else { throw invalidName }
        return (bucket, name)
    }

    /// The bulk delete's `{"prefixes": ["a.png", "folder/b.png"]}` (1–1000 names).
    static func prefixes(_ request: HTTPRequest) throws -> [StorageObjectName] {
        let body = try JSONRequestBody(request, allowed: ["prefixes"], ignored: [])
        try body.finish()
        guard case .array(let items)? = body.object["prefixes"], (1...1000).contains(items.count) else {
            throw DomainError.badRequest(.invalidParameter, "prefixes must be an array of 1 to 1000 object names.")
        }
        return try items.map { item in
            guard case .string(let text) = item, let name = StorageObjectName(text) else { throw invalidName }
            return name
        }
    }

    static let objectNotFound = DomainError(.notFound, .notFound, "Object not found")
    static let invalidName = DomainError(
        .badRequest, .invalidObjectName,
        "Invalid object name: up to \(StorageObjectName.maxSegments) /-separated segments of letters, digits and -_.~!*'()@=+, "
            + "(no . or .. segments), at most \(StorageObjectName.maxBytes) bytes.")
}
