"""Training stage: rejection-sampling fine-tuning of the embedded policy (`rft`) and its checkpoints."""
