#if WebKitGTK
public import BridgeKit

/// Why a ``GTKAssetURIScheme`` could not be made: BridgeKit's `AssetFolderError`, shared with the
/// Apple handler. Thrown by ``GTKAssetURIScheme/init(directory:scheme:host:)``, before any web view
/// exists, so a mistyped scheme or a missing folder is reported where the app configures it, not as
/// pages that never load.
public typealias GTKAssetURISchemeError = AssetFolderError
#endif
