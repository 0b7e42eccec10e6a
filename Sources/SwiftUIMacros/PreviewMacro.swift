import SwiftCompilerPlugin
import SwiftSyntax
import SwiftSyntaxMacros

/// `#Preview { … }`: Xcode's canvas shows it; nothing shows it here, so it declares nothing.
/// Its body is still type-checked against the macro's parameters, as on iOS.
public struct PreviewMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] { [] }
}

@main struct SwiftUIMacros: CompilerPlugin {
    let providingMacros: [Macro.Type] = [PreviewMacro.self]
}
