import Accounts
import HTTPServer
import Store

/// The Supabase-compatible families for the composition root, each in its own error style:
/// `/auth/v1` (GoTrue), `/rest/v1` (PostgREST), `/storage/v1` (Storage).
package enum SupabaseRoutes {
    /// What the server's body limit must allow: a Storage upload, 5 MiB plus a multipart envelope.
    package static let maxRequestBytes = StorageUpload.maxRequestBytes

    package static func register(on router: inout Router, auth: AuthService, restDelta: RestDeltaWindow) {
        router.group(auth: .anonymous, errorStyle: .goTrue) { open in
            GoTrueRoutes.registerSignIn(on: &open, auth: auth)
            GoTrueEmailRoutes.registerPublic(on: &open, auth: auth)
        }
        router.group(auth: .required, errorStyle: .goTrue) { api in
            GoTrueRoutes.register(on: &api, auth: auth)
            GoTrueEmailRoutes.registerAuthenticated(on: &api, auth: auth)
        }
        router.group(auth: .required, errorStyle: .postgREST) { api in
            RestReadRoutes.register(on: &api, auth: auth, store: RestReadStore(pool: auth.pool), delta: restDelta)
            RestWriteRoutes.register(on: &api, auth: auth)
            RestPushDeviceRoutes.register(on: &api, auth: auth)
            RestRPCRoutes.register(on: &api, auth: auth)
        }
        router.group(auth: .anonymous, errorStyle: .storage) { open in
            StorageRoutes.registerPublic(on: &open, auth: auth)
        }
        router.group(auth: .required, errorStyle: .storage) { api in
            StorageRoutes.register(on: &api, auth: auth)
        }
    }

    /// Each family's error shape, by its style (`APIErrorRenderer`).
    package static let errorRenderers: [ErrorStyle: any ErrorRendering] = [
        .goTrue: GoTrueErrorRenderer(),
        .postgREST: RestErrorMapping(),
        .storage: StorageErrorRenderer(),
    ]
}
