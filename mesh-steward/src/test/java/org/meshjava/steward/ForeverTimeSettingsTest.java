package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.FileSnapshotStore;

/**
 * The steward's builder documents a close grace, an engine deadline and a snapshot interval longer
 * than 100 years ({@code Setting.MAX_TIME_LIMIT}) as that long: {@code Duration.ofSeconds(
 * Long.MAX_VALUE)} (the Spring starter's {@code mesh.close-grace=999999999999d}, {@code
 * mesh.snapshots.every-s=9223372036854775807}) means "for ever", so it is taken, not refused, and a
 * serve and a close under it work as under any other value.
 */
class ForeverTimeSettingsTest {
  static final Duration FOREVER = Duration.ofSeconds(Long.MAX_VALUE);

  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  @Test
  void foreverGraceDeadlineAndInterval_areTaken_andAServeIsSealed() throws Exception {
    GrantChain chain = f.chain(1_000_000);
    ServeRequest req = GrantFixture.request("for ever", 4, 70_000);
    try (Steward s =
        f.steward(FileJournal.open(dir.resolve("journal")))
            .snapshots(new FileSnapshotStore(dir.resolve("snaps")))
            .closeGrace(FOREVER)
            .engineDeadline(FOREVER)
            .snapshotInterval(FOREVER)
            .build()) {
      assertThat(s.serve(req, GrantFixture.payload(req), f.present(chain, req)).receipt())
          .isNotNull();
    }
  }
}
