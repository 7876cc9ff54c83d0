package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.meshjava.cli.MeshCommandTest.Run;

/**
 * Regression: {@code mesh serve --port 70000} (or -1, or such a {@code --console-port}) built the
 * steward and its backends, printed their warnings, and only then failed (exit 1) with "port must
 * be 0-65535", naming no option. A port is checked when the options are read: a usage error (exit
 * 2) naming the option and the range, before anything starts.
 */
class ServePortRangeTest {
  private static void assertRefused(String option, String value, List<String> more) {
    List<String> args = new java.util.ArrayList<>(List.of("serve", option, value));
    args.addAll(more);
    Run r = mesh(args.toArray(String[]::new));
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err().strip().lines()).as(r.err()).hasSize(1);
    assertThat(r.err())
        .startsWith("mesh serve: ")
        .contains("'" + option + "'")
        .contains(value + " is not a port: a port is 0 to 65535 (0 picks a free one)")
        .contains("(see 'mesh serve --help')");
    assertThat(r.out()).isEmpty();
  }

  @Test
  void aPortAboveTheRange_isAUsageErrorNamingTheOption() {
    assertRefused("--port", "70000", List.of());
    assertRefused("--port", "65536", List.of());
  }

  @Test
  void aNegativePort_isAUsageErrorNamingTheOption() {
    assertRefused("--port", "-1", List.of());
  }

  @Test
  void aConsolePortOutOfRange_isAUsageErrorNamingTheOption() {
    assertRefused("--console-port", "70000", List.of("--console"));
    assertRefused("--console-port", "-1", List.of("--console"));
  }

  @Test
  void aPortThatIsNoNumber_saysTheRangeToo() {
    Run r = mesh("serve", "--port", "http");
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err())
        .contains("'--port'")
        .contains("'http' is not a port")
        .contains("0 to 65535");
  }
}
