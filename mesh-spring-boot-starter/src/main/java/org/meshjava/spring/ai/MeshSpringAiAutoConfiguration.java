package org.meshjava.spring.ai;

import org.meshjava.spring.MeshAutoConfiguration;
import org.meshjava.spring.MeshProperties;
import org.meshjava.steward.Steward;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * A Spring AI {@link ChatModel} over the steward ({@link MeshSpringAiChatModel}), when Spring AI is
 * on the class path, {@code mesh.spring-ai} is not {@code false}, and the application defines no
 * {@code ChatModel} of its own.
 */
@AutoConfiguration(after = MeshAutoConfiguration.class)
@ConditionalOnClass(ChatModel.class)
@ConditionalOnProperty(prefix = "mesh", name = "spring-ai", matchIfMissing = true)
public class MeshSpringAiAutoConfiguration {

  /** Creates the auto-configuration; Spring calls it. */
  public MeshSpringAiAutoConfiguration() {}

  /** The chat model, asking each chat with {@code mesh.default-joule-ceiling-uj}. */
  @Bean
  @ConditionalOnBean(Steward.class)
  @ConditionalOnMissingBean(ChatModel.class)
  public MeshSpringAiChatModel meshChatModel(Steward steward, MeshProperties properties) {
    return new MeshSpringAiChatModel(steward, properties.defaultJouleCeilingUj());
  }
}
