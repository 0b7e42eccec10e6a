import UIKit

// Previews, as Xcode's templates write them at the end of a view's file. Nothing shows them.

/// `#Preview { ContentView() }` and `#Preview("Signed out", traits: .sizeThatFitsLayout) { … }`.
@freestanding(declaration)
public macro Preview(
    _ name: String? = nil, traits: PreviewTrait..., @ViewBuilder body: @escaping @MainActor () -> any View
) = #externalMacro(module: "SwiftUIMacros", type: "PreviewMacro")

/// `#Preview { NotesViewController() }`: a UIKit view controller's preview.
@freestanding(declaration)
public macro Preview(
    _ name: String? = nil, traits: PreviewTrait..., body: @escaping @MainActor () -> UIViewController
) = #externalMacro(module: "SwiftUIMacros", type: "PreviewMacro")

/// `#Preview { NotesView() }` of a UIKit view.
@freestanding(declaration)
public macro Preview(
    _ name: String? = nil, traits: PreviewTrait..., body: @escaping @MainActor () -> UIView
) = #externalMacro(module: "SwiftUIMacros", type: "PreviewMacro")

/// How a preview is laid out; kept by nothing.
public struct PreviewTrait: Sendable {
    let name: String
    public static let sizeThatFitsLayout = PreviewTrait(name: "sizeThatFits")
    public static let portrait = PreviewTrait(name: "portrait")
    public static let landscapeLeft = PreviewTrait(name: "landscapeLeft")
    public static let landscapeRight = PreviewTrait(name: "landscapeRight")
    public static func fixedLayout(width: CGFloat, height: CGFloat) -> PreviewTrait { PreviewTrait(name: "fixed") }
}
