package org.meshjava.energy;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.Objects;
import java.util.Optional;

/**
 * One native library's functions, bound as downcall handles by C signature: the lookup-and-link
 * step every FFM binding in this module (NVML, IOReport, CoreFoundation) does for each symbol. The
 * restricted FFM calls sit here, so a binding class states only names and signatures.
 *
 * <p>Thread-safe: it holds only the lookup and the linker.
 */
final class NativeSymbols {
  private final Linker linker = Linker.nativeLinker();
  private final SymbolLookup lookup;

  private NativeSymbols(SymbolLookup lookup) {
    this.lookup = Objects.requireNonNull(lookup, "lookup");
  }

  /**
   * Loads {@code library} for as long as {@code arena} lives. The name is handed to the dynamic
   * loader as it is, as a C program would: the {@code Path} form would first resolve a real file,
   * which system libraries need not be (macOS keeps them in the dyld shared cache).
   *
   * @param library a path (contains {@code /}) or a name for the dynamic loader
   * @throws IllegalArgumentException if it cannot be loaded
   * @throws IllegalCallerException if this module may not call native code
   */
  @SuppressWarnings("restricted") // loading a native library is the point of this class
  static NativeSymbols load(String library, Arena arena) {
    return new NativeSymbols(SymbolLookup.libraryLookup(library, arena));
  }

  /**
   * The function {@code symbol}, returning {@code result} and taking {@code arguments}.
   *
   * @throws java.util.NoSuchElementException if the library lacks the symbol
   * @throws IllegalCallerException if this module may not call native code
   */
  MethodHandle function(String symbol, MemoryLayout result, MemoryLayout... arguments) {
    return bind(symbol, FunctionDescriptor.of(result, arguments));
  }

  /**
   * The {@code void} function {@code symbol}, taking {@code arguments}.
   *
   * @throws java.util.NoSuchElementException if the library lacks the symbol
   * @throws IllegalCallerException if this module may not call native code
   */
  MethodHandle procedure(String symbol, MemoryLayout... arguments) {
    return bind(symbol, FunctionDescriptor.ofVoid(arguments));
  }

  /**
   * The function {@code symbol} where the library has it (an optional call a newer version added);
   * empty where it does not.
   *
   * @throws IllegalCallerException if this module may not call native code
   */
  @SuppressWarnings("restricted") // binding a downcall is the point of this class
  Optional<MethodHandle> optionalFunction(
      String symbol, MemoryLayout result, MemoryLayout... arguments) {
    FunctionDescriptor signature = FunctionDescriptor.of(result, arguments);
    return lookup.find(symbol).map(address -> linker.downcallHandle(address, signature));
  }

  @SuppressWarnings("restricted") // binding a downcall is the point of this class
  private MethodHandle bind(String symbol, FunctionDescriptor signature) {
    return linker.downcallHandle(lookup.findOrThrow(symbol), signature);
  }
}
