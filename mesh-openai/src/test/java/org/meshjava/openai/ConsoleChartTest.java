package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console's chart, drawn by {@code console.js} itself under Node.js over a stand-in for the
 * page (the browser test needs Chromium and runs only under {@code -Pbrowser}). Skipped where no
 * {@code node} is installed.
 */
class ConsoleChartTest {
  /** The chart's plot area, as {@code renderChart} lays it out. */
  private static final double LEFT = 70;

  private static final double RIGHT = 790;
  private static final double BOTTOM = 210;
  private static final double TOP = 10;

  /** Loads console.js into a context whose document records what is drawn, then draws the chart. */
  private static final String HARNESS =
      """
      const vm = require("vm");
      const fs = require("fs");
      function element(tag) {
        return { tag, attrs: {}, children: [], dataset: {}, textContent: "", className: "",
          setAttribute(k, v) { this.attrs[k] = String(v); },
          replaceChildren(...c) { this.children = c; },
          append(...c) { this.children.push(...c); } };
      }
      const byId = {};
      const get = id => byId[id] || (byId[id] = element(id));
      const document = { getElementById: get, querySelector: get, createElement: element,
        createElementNS: (ns, tag) => element(tag), createTextNode: t => ({ textContent: t }),
        body: { dataset: {} } };
      const context = vm.createContext(
        { document, fetch: () => new Promise(() => {}), setInterval: () => 0 });
      vm.runInContext(fs.readFileSync(process.argv[2], "utf8"), context);
      vm.runInContext("for (const r of " + fs.readFileSync(process.argv[3], "utf8") + ")"
        + " seen.set(r.sequence, r); renderChart(" + process.argv[4] + ");", context);
      const lines = get("chart").children.filter(c => c.tag === "polyline");
      console.log(JSON.stringify(lines.map(l => l.attrs.points)));
      """;

  private static Optional<Path> node() {
    for (String p : List.of("/usr/bin/node", "/usr/local/bin/node", "/usr/bin/nodejs")) {
      if (Files.isExecutable(Path.of(p))) {
        return Optional.of(Path.of(p));
      }
    }
    return Optional.empty();
  }

  /** The points of each polyline drawn for {@code receipts} at {@code nowMs}. */
  private static List<String> draw(Path dir, ArrayNode receipts, long nowMs)
      throws IOException, InterruptedException {
    Optional<Path> node = node();
    Assumptions.assumeTrue(node.isPresent(), "Node.js is not installed");
    Path script = dir.resolve("console.js");
    try (InputStream in = ConsoleEndpoints.class.getResourceAsStream("console/console.js")) {
      Files.write(script, in.readAllBytes());
    }
    Path harness = Files.writeString(dir.resolve("harness.js"), HARNESS);
    Path rows = Files.writeString(dir.resolve("rows.json"), receipts.toString());
    Path out = dir.resolve("out.json");
    Process p =
        new ProcessBuilder(
                node.get().toString(),
                harness.toString(),
                script.toString(),
                rows.toString(),
                Long.toString(nowMs))
            .redirectOutput(out.toFile())
            .redirectErrorStream(true)
            .start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("node finished").isTrue();
    String printed = Files.readString(out, StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as(printed).isZero();
    JsonNode lines = Fixture.JSON.readTree(printed);
    return java.util.stream.StreamSupport.stream(lines.spliterator(), false)
        .map(JsonNode::asText)
        .toList();
  }

  private static void receipt(ArrayNode rows, long sequence, long sealedAtMs, long uj) {
    rows.addObject()
        .put("sequence", sequence)
        .put("sealed_at_ms", sealedAtMs)
        .put("backend", "small")
        .put("energy_uj", uj);
  }

  /**
   * Regression: the chart took its time axis from the first and last receipt by sequence and drew
   * them in sequence order, so after the steward's clock stepped back a receipt sealed later but
   * stamped earlier was drawn left of the axis, and the line ran back over itself.
   */
  @Test
  void aClockThatStepsBack_drawsEveryLineInsideTheAxes_goingOnlyRightAndUp(@TempDir Path dir)
      throws Exception {
    ArrayNode rows = Fixture.JSON.createArrayNode();
    receipt(rows, 0, 1_000_000, 100);
    receipt(rows, 1, 1_020_000, 200);
    receipt(rows, 2, 995_000, 300); // the clock stepped back 25 s
    receipt(rows, 3, 1_010_000, 400);

    List<String> lines = draw(dir, rows, 1_012_000);

    assertThat(lines).hasSize(1);
    double lastX = LEFT;
    double lastY = BOTTOM;
    for (String point : lines.getFirst().split(" ")) {
      String[] xy = point.split(",");
      double x = Double.parseDouble(xy[0]);
      double y = Double.parseDouble(xy[1]);
      assertThat(x).as(point).isBetween(LEFT, RIGHT);
      assertThat(y).as(point).isBetween(TOP, BOTTOM);
      assertThat(x).as("goes only right: " + point).isGreaterThanOrEqualTo(lastX);
      assertThat(y).as("goes only up: " + point).isLessThanOrEqualTo(lastY);
      lastX = x;
      lastY = y;
    }
    assertThat(lastY).as("ends at the total").isEqualTo(TOP);
  }
}
