#if WebKitGTK
/// The web views the peer comparison runs in: ``BenchSettings/peerViews`` pairs of BridgeKit's
/// view (``EngineBench``) and the peers' view (``PeerEngine``), each view with a web process of
/// its own. The sides of a row reach their pair through this object, so the pairs can be closed
/// and opened anew between rows (``BenchSettings/peerFreshViews(forBytes:)``).
///
/// Thread: main actor (GTK's thread).
@MainActor
final class PeerViews {
    private(set) var engines: [EngineBench] = []
    private(set) var peerEngines: [PeerEngine] = []
    /// Whether any call ran in the open views since they were opened and warmed up.
    var isUsed = false

    /// Opens `pairs` new pairs of views.
    func open(pairs: Int) async throws {
        for _ in 0..<pairs {
            engines.append(try await EngineBench.open())
            peerEngines.append(try await PeerEngine.open())
        }
        isUsed = false
    }

    /// Closes every view (and so ends their web processes).
    func close() async {
        for peers in peerEngines { peers.close() }
        for engine in engines { await engine.close() }
        peerEngines = []
        engines = []
    }

    /// Stores `payload` under `key` in every page.
    func setPayload(_ payload: BenchPayload, key: String) async throws {
        for engine in engines { try await engine.setPayload(payload, key: key) }
        for peers in peerEngines { try await peers.setPayload(payload, key: key) }
    }

    /// Forgets the payload `key` in every page.
    func dropPayload(key: String) async throws {
        for engine in engines { try await engine.dropPayload(key: key) }
        for peers in peerEngines { await peers.dropPayload(key: key) }
    }
}
#endif
