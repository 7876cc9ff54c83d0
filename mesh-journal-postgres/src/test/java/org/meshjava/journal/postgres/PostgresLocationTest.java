package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class PostgresLocationTest {
  @Test
  void parse_takesTheLibpqForm_andKeepsThePasswordOutOfItsText() {
    PostgresLocation l =
        PostgresLocation.parse(
            "postgresql://mesh:s%40cret@db.example:6543/stewards?lease_ms=3000&sslmode=require");
    assertThat(l.toString()).isEqualTo("postgresql://mesh:***@db.example:6543/stewards");
    assertThat(l.lease()).isEqualTo(Duration.ofSeconds(3));
    assertThat(l.lockWait()).isZero();
    assertThat(PostgresLocation.parse("jdbc:postgresql://h/d?lock_wait_ms=2500").lockWait())
        .isEqualTo(Duration.ofMillis(2500));
    assertThat(PostgresLocation.parse("postgres://h/d").toString())
        .isEqualTo("postgresql://h:5432/d");
    assertThat(PostgresLocation.parse("postgres://h/d").lease())
        .isEqualTo(PostgresLocation.DEFAULT_LEASE);
  }

  @Test
  void parse_refusesWhatIsNotALocation_namingWhy() {
    assertThatThrownBy(() -> PostgresLocation.parse("/var/lib/mesh/journal"))
        .hasMessageContaining("not a postgresql:// URL");
    assertThatThrownBy(() -> PostgresLocation.parse("postgresql://host"))
        .hasMessageContaining("names no database");
    assertThatThrownBy(() -> PostgresLocation.parse("postgresql:///db"))
        .hasMessageContaining("names no host");
    assertThatThrownBy(() -> PostgresLocation.parse("postgresql://h:99999/db"))
        .hasMessageContaining("port 99999 is not 1 to 65535");
    assertThatThrownBy(() -> PostgresLocation.parse("postgresql://h:0/db"))
        .hasMessageContaining("port 0 is not 1 to 65535");
    assertThatThrownBy(() -> PostgresLocation.parse("postgresql://h/d?lease_ms=soon"))
        .hasMessageContaining("lease_ms");
    assertThatThrownBy(() -> PostgresLocation.parse("postgresql://h/d?lease_ms=10"))
        .hasMessageContaining("at least 1000");
    assertThat(PostgresLocation.isPostgres("journal.log")).isFalse();
  }

  @Test
  void aHostThatDoesNotResolve_isNamed_notOnlyAFailedConnection() {
    // .invalid never resolves (RFC 6761).
    PostgresLocation nowhere = PostgresLocation.parse("postgresql://no-such-host.invalid/mesh");
    assertThatThrownBy(() -> PostgresJournal.names(nowhere))
        .hasMessageContaining("cannot list the journals at postgresql://no-such-host.invalid")
        .hasMessageContaining("unknown host no-such-host.invalid");
  }
}
