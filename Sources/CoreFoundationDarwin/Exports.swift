// On iOS, Foundation brings Combine (`ObservableObject`, `@Published`, subjects and operators):
// so does every facade here, through this module. `import Combine` adds the publishers of
// NotificationCenter, Timer and URLSession.
@_exported import OpenCombine
@_exported import OpenCombineDispatch
