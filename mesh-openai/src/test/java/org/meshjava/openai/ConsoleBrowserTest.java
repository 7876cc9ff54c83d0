package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;

/**
 * The operator console in a real browser: headless Chromium loads the page from a running steward
 * that has served a few requests, and the rendered page must show those receipts, the grant's spend
 * and a drawn chart. A screenshot is kept at {@code target/browser/console.png}.
 *
 * <p>Runs under {@code -Pbrowser} only (it needs Chromium: {@code /usr/bin/chromium}, or the path
 * in {@code MESH_CHROMIUM}). Without Chromium it is skipped, except with {@code CI=true}, where a
 * missing browser fails it, so CI can never pass without having looked.
 */
@Tag("browser")
class ConsoleBrowserTest {
  private static final Duration BROWSER_TIMEOUT = Duration.ofSeconds(90);

  private final SigningKey caller = Jcp.newKey();
  private Fixture f;
  private Path chromium;

  @BeforeEach
  void start() {
    chromium = chromium();
    f = new Fixture(null, s -> {}, b -> b.console("127.0.0.1", 0));
  }

  @AfterEach
  void stop() {
    if (f != null) {
      f.close();
    }
  }

  private static Path chromium() {
    String configured = System.getenv("MESH_CHROMIUM");
    List<Path> candidates = new ArrayList<>();
    if (configured != null && !configured.isBlank()) {
      candidates.add(Path.of(configured));
    }
    candidates.add(Path.of("/usr/bin/chromium"));
    candidates.add(Path.of("/usr/bin/chromium-browser"));
    Optional<Path> found = candidates.stream().filter(Files::isExecutable).findFirst();
    if (found.isEmpty()) {
      String why = "Chromium is not installed (tried " + candidates + "; set MESH_CHROMIUM)";
      if ("true".equals(System.getenv("CI"))) {
        throw new AssertionError(why + "; on CI the browser test must run");
      }
      Assumptions.abort(why);
    }
    return found.orElseThrow();
  }

  @Test
  void console_rendersReceiptsGrantsAndAChart_inHeadlessChromium(@TempDir Path profile)
      throws Exception {
    // A few serves on two backends, one of them on a grant.
    for (String prompt : List.of("first", "second", "third")) {
      assertThat(f.post("/v1/chat/completions", Fixture.chat(prompt)).status()).isEqualTo(200);
    }
    ObjectNode large = Fixture.chat("on the large backend");
    large.put("model", "large");
    assertThat(f.post("/v1/chat/completions", large).status()).isEqualTo(200);
    GrantChain chain = ConsoleTest.grant(caller, f.steward.identity(), 5_000_000);
    ObjectNode granted = ConsoleTest.presented(caller, chain, "granted");
    assertThat(f.post("/v1/chat/completions", granted).status()).isEqualTo(200);
    long served = f.steward.head().nextSequence();
    assertThat(served).isEqualTo(5);

    String url = f.server.consoleUri().orElseThrow().toString();
    String dom = run(profile.resolve("dom"), List.of("--dump-dom", url));

    assertThat(dom).contains("data-polled=");
    assertThat(count(dom, "<tr class=\"receipt\"")).isEqualTo((int) served);
    for (long seq = 0; seq < served; seq++) {
      assertThat(dom).contains("data-sequence=\"" + seq + "\"");
    }
    assertThat(dom).contains("<td>small</td>").contains("<td>large</td>").contains("Estimator");
    assertThat(dom).contains("next sequence " + served);
    assertThat(count(dom, "<tr class=\"grant\"")).isEqualTo(1);
    assertThat(dom).contains(chain.leaf().id().hex().substring(0, 12));
    // The chart: one drawn line per backend that served, each with more than two points.
    Matcher lines =
        Pattern.compile(
                "<polyline points=\"([^\"]+)\" class=\"series c\\d\" data-backend=\"(\\w+)\"")
            .matcher(dom);
    List<String> backends = new ArrayList<>();
    while (lines.find()) {
      backends.add(lines.group(2));
      assertThat(lines.group(1).split(" ").length).isGreaterThan(2);
    }
    assertThat(backends).containsExactlyInAnyOrder("small", "large");

    Path shots = Path.of("target", "browser");
    Files.createDirectories(shots);
    Path png = shots.resolve("console.png").toAbsolutePath();
    Files.deleteIfExists(png);
    run(
        profile.resolve("shot"),
        List.of("--screenshot=" + png, "--window-size=1280,1100", "--hide-scrollbars", url));
    byte[] image = Files.readAllBytes(png);
    assertThat(image.length).isGreaterThan(10_000);
    assertThat(new String(image, 1, 3, StandardCharsets.US_ASCII)).isEqualTo("PNG");
  }

  /** Runs headless Chromium on a fresh profile; returns its standard output. */
  private String run(Path userData, List<String> args) throws IOException, InterruptedException {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                chromium.toString(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--user-data-dir=" + userData,
                // Long enough for the page to load and poll a few times, in virtual time.
                "--virtual-time-budget=6000"));
    cmd.addAll(args);
    Path out = Files.createTempFile(userData.getParent(), "chromium", ".out");
    Path err = Files.createTempFile(userData.getParent(), "chromium", ".err");
    Process p =
        new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    if (!p.waitFor(BROWSER_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("Chromium did not finish within " + BROWSER_TIMEOUT);
    }
    String stdout = Files.readString(out, StandardCharsets.UTF_8);
    assertThat(p.exitValue())
        .as("chromium exit; stderr:%n%s", Files.readString(err, StandardCharsets.UTF_8))
        .isZero();
    return stdout;
  }

  private static int count(String text, String needle) {
    int n = 0;
    for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
      n++;
    }
    return n;
  }
}
