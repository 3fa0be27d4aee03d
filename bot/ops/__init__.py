"""Operations: settings from the environment, start-up and the clean stop, health and
metrics, worker processes, the doctor, the disk, the database choice and its copy."""
