// Combine, as a team's code imports it: OpenCombine, a maintained implementation of Apple's
// Combine API, under Combine's name (Docs/your-app.md). On Linux OpenCombine gives
// `NotificationCenter.default.publisher(for:)`, `Timer.publish`, `URLSession`'s publishers,
// and `DispatchQueue`, `RunLoop` and `OperationQueue` as schedulers.
@_exported import CoreFoundationDarwin
@_exported import OpenCombine
@_exported import OpenCombineDispatch
@_exported import OpenCombineFoundation
