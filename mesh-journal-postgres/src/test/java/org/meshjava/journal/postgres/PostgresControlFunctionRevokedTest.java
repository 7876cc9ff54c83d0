package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;

/**
 * A DBA who revoked {@code pg_control_system()} from the steward's role (SPEC.md 60.7, "Copies"):
 * the opening cannot record or check where the journal was written, and is refused naming the
 * function and the grant that gives it back, not only in the server's bare "permission denied".
 */
class PostgresControlFunctionRevokedTest {
  /** Where the grant to copy starts in the refusal. */
  private static final String GRANT =
      "GRANT EXECUTE ON FUNCTION pg_catalog.pg_control_system() TO ";

  @Test
  void aRoleDeniedPgControlSystem_isRefusedIo_namingTheGrantThatGivesItBack() throws Exception {
    StewardRoleJournal journal = StewardRoleJournal.of(1);
    // A function's privileges are the database's own: this database only.
    journal.sql("REVOKE EXECUTE ON FUNCTION pg_catalog.pg_control_system() FROM PUBLIC");
    PostgresLocation asRole = journal.asRole();

    assertThatThrownBy(() -> PostgresJournal.open(asRole, journal.name()))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.IO);
              assertThat(e.getMessage())
                  .contains("pg_control_system")
                  .contains(GRANT + journal.role());
            });

    journal.sql(GRANT + journal.role());
    try (PostgresJournal j = PostgresJournal.open(asRole, journal.name())) {
      assertThat(j.epoch()).as("given back, the role opens the journal").isEqualTo(2);
    }
  }

  @Test
  void theGrantNamed_forARoleWhoseNameMustBeQuoted_isOneThatRunsAsWritten() throws Exception {
    // Capitals and a space: unquoted, GRANT … TO Mesh Steward is not a statement at all, and
    // a capitalised name alone would fold to another role's.
    StewardRoleJournal journal = StewardRoleJournal.of(1, "Mesh Steward");
    journal.sql("REVOKE EXECUTE ON FUNCTION pg_catalog.pg_control_system() FROM PUBLIC");
    PostgresLocation asRole = journal.asRole();
    String message = "";
    try {
      PostgresJournal.open(asRole, journal.name()).close();
    } catch (JournalException e) {
      message = e.getMessage();
    }
    assertThat(message).contains(GRANT + "\"Mesh Steward\"");

    // The operator copies the grant from the refusal as it stands, to the end of its line.
    journal.sql(message.substring(message.indexOf(GRANT)).lines().findFirst().orElseThrow());
    try (PostgresJournal j = PostgresJournal.open(asRole, journal.name())) {
      assertThat(j.epoch()).as("given back, the role opens the journal").isEqualTo(2);
    }
  }
}
