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

  @Test
  void parse_takesEveryPortFromOneTo65535_andNoOther() {
    assertThat(PostgresLocation.parse("postgresql://h:1/d").toString())
        .isEqualTo("postgresql://h:1/d");
    assertThat(PostgresLocation.parse("postgresql://h:65535/d").toString())
        .isEqualTo("postgresql://h:65535/d");
    assertThatThrownBy(() -> PostgresLocation.parse("postgresql://h:65536/d"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("port 65536 is not 1 to 65535");
  }

  @Test
  void leaseAndLockWait_takeTheirSmallestAllowedValues_andRefuseOneLess() {
    assertThat(PostgresLocation.parse("postgresql://h/d?lease_ms=1000").lease())
        .isEqualTo(Duration.ofSeconds(1));
    assertThatThrownBy(() -> PostgresLocation.parse("postgresql://h/d?lease_ms=999"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lease_ms must be at least 1000: 999");
    assertThat(PostgresLocation.parse("postgresql://h/d?lock_wait_ms=0").lockWait()).isZero();
    assertThatThrownBy(() -> PostgresLocation.parse("postgresql://h/d?lock_wait_ms=-1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lock_wait_ms must not be negative");
    assertThatThrownBy(() -> PostgresLocation.parse("postgresql://h/d?lock_wait_ms=later"))
        .hasMessageContaining("lock_wait_ms is not a whole number of milliseconds: later");
  }

  @Test
  void lockTimeout_isHalfTheLeaseUnlessGiven_atLeastItsFloor_andLessThanTheLease() {
    assertThat(PostgresLocation.parse("postgresql://h/d").lockTimeout())
        .isEqualTo(Duration.ofSeconds(5));
    PostgresLocation halfOfIt = PostgresLocation.parse("postgresql://h/d?lease_ms=3000");
    assertThat(halfOfIt.lockTimeout()).isEqualTo(Duration.ofMillis(1500));
    assertThat(halfOfIt.withLease(Duration.ofSeconds(8)).lockTimeout())
        .as("the default follows the lease")
        .isEqualTo(Duration.ofSeconds(4));
    PostgresLocation given =
        PostgresLocation.parse("postgresql://h/d?lease_ms=3000&lock_timeout_ms=100");
    assertThat(given.lockTimeout()).isEqualTo(Duration.ofMillis(100));
    assertThat(given.withLease(Duration.ofSeconds(8)).lockTimeout())
        .isEqualTo(Duration.ofMillis(100));
    assertThat(given.withLockWait(Duration.ofSeconds(2)).lockTimeout())
        .isEqualTo(Duration.ofMillis(100));
    assertThat(
            PostgresLocation.parse("postgresql://h/d?lease_ms=3000&lock_timeout_ms=2998")
                .lockTimeout())
        .isEqualTo(Duration.ofMillis(2998));
    assertThat(
            PostgresLocation.parse(
                    "postgresql://h/d?lease_ms=3000&lock_timeout_ms=2999&statement_timeout_ms=0")
                .lockTimeout())
        .as("the lease's last millisecond, where the statements have no limit of their own")
        .isEqualTo(Duration.ofMillis(2999));
    // 0 is no limit to the server, one of the lease lets the driver give up first, and one under
    // the floor (1 was taken) cancels batches behind the brief locks of ordinary work.
    for (String v : new String[] {"0", "-1", "1", "99", "3000"}) {
      assertThatThrownBy(
              () -> PostgresLocation.parse("postgresql://h/d?lease_ms=3000&lock_timeout_ms=" + v))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(
              "lock_timeout_ms must be at least 100 and less than lease_ms (3000): " + v);
    }
    assertThatThrownBy(() -> PostgresLocation.parse("postgresql://h/d?lock_timeout_ms=soon"))
        .hasMessageContaining("lock_timeout_ms is not a whole number of milliseconds: soon");
    PostgresLocation l =
        PostgresLocation.parse("postgresql://h/d?lease_ms=3000&lock_timeout_ms=2000");
    assertThatThrownBy(() -> l.withLease(Duration.ofSeconds(2)))
        .hasMessageContaining("lock_timeout_ms must be at least 100 and less than lease_ms (2000)");
  }

  /**
   * A socketTimeout no longer than the lock timeout let the driver give up on a statement waiting
   * for a lock first: the refusal was a lost connection, and the server's session kept waiting.
   */
  @Test
  void aSocketTimeoutNoLongerThanTheLockTimeout_isRefusedInWords() {
    for (String url :
        new String[] {
          "postgresql://h/d?lease_ms=4000&lock_timeout_ms=3000&socketTimeout=3",
          "postgresql://h/d?lease_ms=4000&lock_timeout_ms=2500&socketTimeout=1",
          "postgresql://h/d?lease_ms=10000&socketTimeout=5"
        }) {
      assertThatThrownBy(() -> PostgresLocation.parse(url))
          .as(url)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("(seconds) must be longer than the lock_timeout of")
          .hasMessageContaining(
              "raise socketTimeout, set it to 0 (none), or lower lock_timeout_ms");
    }
    // None, one longer than the lock timeout, or one the driver is left to read, as before.
    for (String url :
        new String[] {
          "postgresql://h/d?lease_ms=4000&lock_timeout_ms=3000&socketTimeout=0",
          "postgresql://h/d?lease_ms=4000&lock_timeout_ms=2998&socketTimeout=3",
          "postgresql://h/d?lease_ms=10000&socketTimeout=6",
          "postgresql://h/d?socketTimeout=soon"
        }) {
      assertThat(PostgresLocation.parse(url).lease()).as(url).isPositive();
    }
  }

  /**
   * seconds * 1000 overflowed past about 9.2e15 seconds: a socketTimeout that long came out
   * negative and was refused as shorter than the lock timeout, words that were not so.
   */
  @Test
  void aSocketTimeoutTooLongToCountInMilliseconds_isNotCalledShorterThanTheLockTimeout() {
    for (String seconds : new String[] {"9300000000000000", "9223372036854775807"}) {
      String url = "postgresql://h/d?lease_ms=4000&socketTimeout=" + seconds;
      PostgresLocation l = PostgresLocation.parse(url);
      assertThat(l.lockTimeout()).as(url).isEqualTo(Duration.ofMillis(2000));
      assertThat(l.statementTimeout()).as(url).isEqualTo(Duration.ofMillis(3000));
    }
  }

  /**
   * The default statement limit lies midway between the lock timeout and the lease (or a shorter
   * socketTimeout), in whole milliseconds: with one millisecond between them it came out at the
   * lock timeout, so a statement waiting for a lock was cancelled as overlong, naming no holder.
   */
  @Test
  void aLockTimeoutLeavingNoWholeMillisecondForTheStatementLimit_isRefusedSayingWhy() {
    for (String url :
        new String[] {
          "postgresql://h/d?lease_ms=3000&lock_timeout_ms=2999",
          "postgresql://h/d?lease_ms=4000&lock_timeout_ms=2999&socketTimeout=3"
        }) {
      assertThatThrownBy(() -> PostgresLocation.parse(url))
          .as(url)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(
              "lock_timeout_ms (2999) leaves no whole millisecond below lease_ms and the URL's"
                  + " socketTimeout")
          .hasMessageContaining("lower lock_timeout_ms, or give statement_timeout_ms=0 (none)");
    }
    PostgresLocation room =
        PostgresLocation.parse("postgresql://h/d?lease_ms=3000&lock_timeout_ms=2998");
    assertThat(room.statementTimeout()).isEqualTo(Duration.ofMillis(2999));
    assertThat(
            PostgresLocation.parse(
                    "postgresql://h/d?lease_ms=4000&lock_timeout_ms=2998&socketTimeout=3")
                .statementTimeout())
        .isEqualTo(Duration.ofMillis(2999));
  }

  @Test
  void withLeaseAndWithLockWait_changeOnlyTheirOwnSetting_andCheckItAsParseDoes() {
    PostgresLocation l =
        PostgresLocation.parse("postgresql://mesh:pw@h:6543/d?lease_ms=3000&lock_wait_ms=500");
    PostgresLocation longer = l.withLease(Duration.ofSeconds(20));
    assertThat(longer.lease()).isEqualTo(Duration.ofSeconds(20));
    assertThat(longer.lockWait()).isEqualTo(Duration.ofMillis(500));
    assertThat(longer.toString()).isEqualTo("postgresql://mesh:***@h:6543/d");
    PostgresLocation patient = l.withLockWait(Duration.ofSeconds(7));
    assertThat(patient.lockWait()).isEqualTo(Duration.ofSeconds(7));
    assertThat(patient.lease()).isEqualTo(Duration.ofSeconds(3));
    assertThat(patient.toString()).isEqualTo("postgresql://mesh:***@h:6543/d");
    assertThatThrownBy(() -> l.withLease(Duration.ofMillis(999)))
        .hasMessageContaining("lease_ms must be at least 1000");
    assertThatThrownBy(() -> l.withLockWait(Duration.ofMillis(-1)))
        .hasMessageContaining("lock_wait_ms must not be negative");
  }

  /**
   * The socket's and the sessions' timeouts come from the lease, and neither the driver nor
   * PostgreSQL holds one past 2147483647 ms: a lease of 2863311531 ms was accepted, and every
   * opening was refused "Something unusual has occurred to cause the driver to fail".
   */
  @Test
  void aLeaseLongerThanPostgresLongestTimeout_isRefusedAtParsing() {
    for (String lease : new String[] {"2147483648", "2863311531", "9223372036854775807"}) {
      assertThatThrownBy(() -> PostgresLocation.parse("postgresql://h/d?lease_ms=" + lease))
          .as(lease)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("lease_ms must be at most 2147483647");
    }
    PostgresLocation longest = PostgresLocation.parse("postgresql://h/d?lease_ms=2147483647");
    assertThat(longest.statementTimeout().toMillis()).isLessThanOrEqualTo(Integer.MAX_VALUE);
    assertThatThrownBy(() -> longest.withLease(Duration.ofDays(25)))
        .hasMessageContaining("lease_ms must be at most");
  }

  @Test
  void userAndPassword_comeFromTheUserInfo_orElseFromTheParameters() {
    assertThat(PostgresLocation.parse("postgresql://mesh@h/d").toString())
        .as("a user without a password shows no stars")
        .isEqualTo("postgresql://mesh@h:5432/d");
    assertThat(PostgresLocation.parse("postgresql://h/d?user=mesh&password=pw").toString())
        .isEqualTo("postgresql://mesh:***@h:5432/d");
    assertThat(PostgresLocation.parse("postgresql://h/d?user=mesh").toString())
        .isEqualTo("postgresql://mesh@h:5432/d");
    assertThat(PostgresLocation.parse("postgresql://h/d?password=pw").toString())
        .as("a password without a user is not shown at all")
        .isEqualTo("postgresql://h:5432/d");
    assertThat(PostgresLocation.parse("postgresql://:pw@h/d").toString())
        .as("an empty user before the password: the password still not shown")
        .isEqualTo("postgresql://:***@h:5432/d");
    assertThat(PostgresLocation.parse("postgresql://ops:pw@h/d?user=other").toString())
        .as("the user before the host wins over a user parameter")
        .isEqualTo("postgresql://ops:***@h:5432/d");
  }

  @Test
  void percentEscapes_areDecoded_butAPlusStaysAPlus() {
    // A '+' is a space only in HTML forms; in a URL's user or database it is itself.
    assertThat(PostgresLocation.parse("postgresql://a+b@h/my%20db%2Bx").toString())
        .isEqualTo("postgresql://a+b@h:5432/my db+x");
  }

  @Test
  void parametersWithoutAValue_orEmptyOnes_areTaken() {
    PostgresLocation l = PostgresLocation.parse("postgresql://h/d?&ssl&&lease_ms=2000&");
    assertThat(l.lease()).isEqualTo(Duration.ofSeconds(2));
    assertThat(l.toString()).isEqualTo("postgresql://h:5432/d");
  }

  /**
   * A schema named {@code $user}: the session is kept to its schema by its search_path, which reads
   * that name, even quoted, as the schema named after the role, so the journal would have been kept
   * there (a role's own schema) rather than in the one the URL names.
   */
  @Test
  void parse_refusesTheSchemaNamedDollarUser_whichASearchPathReadsAsTheRolesOwn() {
    assertThatThrownBy(() -> PostgresLocation.parse("postgresql://h/d?schema=$user"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("schema $user cannot hold a journal");
    assertThat(PostgresLocation.parse("postgresql://h/d?schema=$users").schema())
        .hasValue("$users");
  }
}
