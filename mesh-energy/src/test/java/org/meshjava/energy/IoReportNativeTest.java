package org.meshjava.energy;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EnergyDomain;

/**
 * The IOReport binding's native path, run off Apple hardware against a fake of CoreFoundation and
 * IOReport compiled from C ({@code fake_ioreport.c}): the libraries load by name through the
 * loader, unit labels are trimmed, and every CoreFoundation object a Create or Copy call returned
 * is released exactly once.
 */
class IoReportNativeTest {
  private static FakeNativeBuild built;

  private static synchronized Path library() {
    if (built == null) {
      built = FakeNativeBuild.compile("fake_ioreport.c", "libfakeioreport.so");
    }
    assumeTrue(built.library().isPresent(), () -> "skipping: " + built.skipReason());
    return built.library().get();
  }

  @SuppressWarnings("restricted") // reading the fake's counters is the point
  private static long call(Path lib, String symbol) throws Throwable {
    MethodHandle h =
        Linker.nativeLinker()
            .downcallHandle(
                SymbolLookup.libraryLookup(lib, Arena.global()).findOrThrow(symbol),
                FunctionDescriptor.of(JAVA_LONG));
    return (long) h.invokeExact();
  }

  @Test
  void subscription_readsTrimmedUnits_andReleasesEveryOwnedObject() throws Throwable {
    Path lib = library();
    long before = call(lib, "fake_cf_outstanding");
    IoReportNative sampler = IoReportNative.subscribe(lib.toString(), lib.toString());
    List<EnergyChannel> found = new ArrayList<>();
    List<CounterStatus> refused = new ArrayList<>();
    IoReportDiscovery.adopt(new IoReportSession(sampler), sampler, found, refused);
    assertThat(refused).isEmpty();
    assertThat(found)
        .extracting(EnergyChannel::domain)
        .containsExactlyInAnyOrder(
            EnergyDomain.cpuPackage(0), EnergyDomain.gpu(0), EnergyDomain.dram(0));
    EnergyChannel cpu =
        found.stream().filter(c -> c.domain().equals(EnergyDomain.cpuPackage(0))).findFirst().get();
    long first = cpu.readTotalUj();
    long second = cpu.readTotalUj();
    assertThat(second - first).as("100 mJ per delta, label 'mJ  '").isEqualTo(100_000);
    for (EnergyChannel c : found) {
      c.release();
    }
    assertThat(call(lib, "fake_cf_bad_releases")).as("releases of objects not owned").isZero();
    assertThat(call(lib, "fake_cf_outstanding") - before).as("objects never released").isZero();
  }

  @Test
  void subscribe_whenLibraryIsMissing_isLibraryMissing() {
    Path lib = library();
    try {
      IoReportNative.subscribe(lib.resolveSibling("absent.dylib").toString(), lib.toString());
      throw new AssertionError("subscribed through a missing library");
    } catch (CounterException e) {
      assertThat(e.issue()).isEqualTo(CounterIssue.LIBRARY_MISSING);
    }
  }
}
