package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Discovery in a JVM that denies this module native access ({@code --illegal-native-access=deny},
 * no {@code --enable-native-access}): every restricted FFM call throws {@link
 * IllegalCallerException}, and discovery must still return, reporting why. Runs only in the {@code
 * native-access-denied} Surefire execution of this module, which starts its JVM that way; the
 * default execution, which grants access, leaves it out.
 */
class NativeAccessDeniedTest {

  @Test
  void discover_whenNativeAccessIsDenied_reportsItAndNeverThrows() {
    boolean denyingExecution = Boolean.getBoolean("mesh.energy.nativeAccessDenied");
    assumeTrue(
        denyingExecution || !getClass().getModule().isNativeAccessEnabled(),
        "runs in the native-access-denied execution only");
    assertThat(getClass().getModule().isNativeAccessEnabled())
        .as("the native-access-denied execution must start its JVM denying native access")
        .isFalse();
    DiscoveryOptions options =
        DiscoveryOptions.defaults()
            .withoutRapl()
            .withNvmlLibrary(DiscoveryOptions.DEFAULT_NVML_LIBRARY)
            .withGpuVisibility(GpuVisibility.all());
    List<Runnable> reprobes = new ArrayList<>();
    MeterDiscovery found =
        MeterDiscovery.discover(
            options, new FakeClock(), reprobes::add, SysfsReader.FILES, "Mac OS X");
    assertThat(found.meter()).isInstanceOf(EstimatorMeter.class);
    assertThat(found.counters())
        .filteredOn(s -> s.issue().orElseThrow() == CounterIssue.NATIVE_ACCESS_DENIED)
        .extracting(CounterStatus::counter)
        .containsExactlyInAnyOrder("nvml", "ioreport");
    assertThat(found.counters())
        .allSatisfy(s -> assertThat(s.detail()).contains("--enable-native-access"));
  }
}
