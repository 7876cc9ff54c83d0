package com.example.mesh;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ServingEngine;
import org.meshjava.receipt.ReceiptChain;
import org.meshjava.receipt.SealedReceipt;
import org.meshjava.spring.ai.MeshSpringAiChatModel;
import org.meshjava.steward.Steward;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * The README's Spring Boot example, as a test an application can copy: the starter builds the
 * steward from {@code application.yml}; with Spring AI on the class path it adds a {@link
 * ChatModel} whose every answer carries its sealed receipt, and with Actuator and {@code
 * mesh-metrics} the steward's meters and its health indicator.
 */
@SpringBootTest
class MeshSpringBootExampleTest {

  /** The application: nothing but the annotation; the starter does the rest. */
  @SpringBootApplication
  static class App {}

  @Autowired Steward steward;
  @Autowired ChatModel chat;
  @Autowired MeterRegistry meters;
  @Autowired HealthContributorRegistry health;

  @Test
  void theStewardServesTheBackendsTheYamlLists() {
    assertThat(steward.backends())
        .extracting(ServingEngine::name)
        .containsExactly("small", "large");
    assertThat(chat).isInstanceOf(MeshSpringAiChatModel.class);
  }

  @Test
  void aSpringAiAnswer_carriesItsSealedReceipt() throws Exception {
    ChatResponse answer =
        chat.call(
            new Prompt(
                "What did this cost?", ChatOptions.builder().model("large").maxTokens(8).build()));

    SealedReceipt sealed = MeshSpringAiChatModel.receipt(answer);
    assertThat(answer.getResult().getOutput().getText()).isNotEmpty();
    assertThat(sealed.receipt().backend()).isEqualTo("large");
    assertThat(sealed.receipt().counters().tokensOut()).isEqualTo(8);
    assertThat(sealed.receipt().steward()).isEqualTo(steward.identity());
    // Anyone holding the envelope can check the steward's signature.
    assertThat(ReceiptChain.verifySegment(List.of(sealed.envelope())).getFirst()).isEqualTo(sealed);
  }

  @Test
  void servesAreCountedInTheApplicationsMeters_andTheStewardReportsItsHealth() {
    chat.call(new Prompt("Count me."));

    assertThat(meters.get("mesh.serves").tag("outcome", "served").counter().count()).isPositive();
    HealthIndicator mesh = (HealthIndicator) health.getContributor("mesh");
    assertThat(mesh.health().getStatus()).isEqualTo(Status.UP);
    assertThat(mesh.health().getDetails()).containsKeys("journal", "grants", "meter", "chain");
  }
}
