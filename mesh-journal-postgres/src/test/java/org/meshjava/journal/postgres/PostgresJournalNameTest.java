package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A journal's name (its steward's identity) is 1 to 512 characters, and every way in refuses
 * another by name before touching the database: an empty name would otherwise open, and list, as a
 * journal of its own.
 */
class PostgresJournalNameTest {
  @BeforeAll
  static void startServer() {
    PostgresJournalTest.startServer();
  }

  @Test
  void aNameOf512Characters_opens_andOneOf513IsRefused() throws Exception {
    String longest = "did:key:" + "z".repeat(504);
    try (PostgresJournal j = PostgresJournal.open(PostgresJournalTest.location(), longest)) {
      j.append(PostgresJournalTest.authorised(0));
      assertThat(j.name()).isEqualTo(longest);
    }
    assertThat(PostgresJournal.readLines(PostgresJournalTest.location(), longest)).hasSize(2);
    assertRefused(longest + "z");
  }

  @Test
  void anEmptyOrBlankName_isRefused_byOpenReadAndImport() {
    assertRefused("");
    assertRefused("   ");
  }

  static void assertRefused(String name) {
    var location = PostgresJournalTest.location();
    assertThatThrownBy(() -> PostgresJournal.open(location, name).close())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("a journal's name is 1 to 512 characters");
    assertThatThrownBy(() -> PostgresJournal.readLines(location, name))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("a journal's name is 1 to 512 characters");
    assertThatThrownBy(() -> PostgresJournal.readLines(location, name, line -> {}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("a journal's name is 1 to 512 characters");
    assertThatThrownBy(() -> PostgresJournal.importLines(location, name, java.util.List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("a journal's name is 1 to 512 characters");
  }
}
