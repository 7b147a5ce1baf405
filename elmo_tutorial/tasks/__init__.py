"""The task family: what ELMo adds to a task model (``elmo-tutorial tasks``).

Taught in notebooks 12 and 13.

  registry         the tasks of the report, one Task each (reader, metric, names, cost, ...)
  model            TaskModel: static vectors + characters (+ ELMo) → BiLSTM → classes
  training         TaskSplit, prepare_task, the protocol, one run of one variant on one seed
  vectors          the baseline's static vectors (PPMI + SVD of the biLM's own text)
  bag_of_words     the sentence-classification floor
  runs             every run kept in a runs file, so that an interrupted report resumes
  report           the report as a pipeline: plan → run → summarise
  results          its result, typed: TaskReport, the schema of tasks.json
  report_markdown  the report as markdown; report_figures: its figures
  quality          the held-out perplexity of the quality figure's biLMs

What notebooks 12 and 13 use is importable from here::

    from elmo_tutorial.tasks import TaskModel, prepare_task, task_word_vectors, train_arms
"""

from elmo_tutorial.tasks.model import TaskModel
from elmo_tutorial.tasks.report import train_arms
from elmo_tutorial.tasks.report_figures import draw
from elmo_tutorial.tasks.training import TaskSplit, encode_words, prepare_task
from elmo_tutorial.tasks.vectors import task_word_vectors

__all__ = ["TaskModel", "TaskSplit", "draw", "encode_words", "prepare_task",
           "task_word_vectors", "train_arms"]
