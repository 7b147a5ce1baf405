"""The task family: what ELMo adds to a task model (notebook 12, ``elmo-tutorial tasks`` and
``elmo-tutorial finetune``).

Taught in notebooks 12 and 13.

  model            TaskModel: static vectors (+ characters, + ELMo) → BiLSTM → classes
  characters       the baseline's character CNN, c_k of x_k = [w_k; c_k]
  training         TaskSplit, encode_words, train_task_model: to convergence on dev
  experiments      the three tasks read and prepared, one run of one variant on one seed
  corpus_vectors   the baseline's static vectors (PPMI + SVD of the biLM's own text), cached
  vectors          those vectors for the tasks' words, shipped beside a report
  bag_of_words     the sentence-classification floor
  runs             every run kept, so that an interrupted report resumes
  report           the whole report (Tables 1-3, Figures 1-2, learning curves, quality)
  summary          runs → means, paired intervals and verdicts
  results          the report's result, typed: TaskReport, the schema of tasks.json
  report_markdown  the report as markdown; report_figures: its figures
  finetune_report  fine-tuning the biLM on the task's text (paper Appendix A.1)
  finetune_results its result, typed: FinetuneReport, the schema of finetune.json

What notebook 12 uses is importable from here::

    from elmo_tutorial.tasks import TaskModel, prepare_task, task_word_vectors, train_arms
"""

from elmo_tutorial.tasks.experiments import prepare_task
from elmo_tutorial.tasks.model import TaskModel
from elmo_tutorial.tasks.report import train_arms
from elmo_tutorial.tasks.report_figures import draw
from elmo_tutorial.tasks.training import TaskSplit, encode_words
from elmo_tutorial.tasks.vectors import task_word_vectors

__all__ = ["TaskModel", "TaskSplit", "draw", "encode_words", "prepare_task",
           "task_word_vectors", "train_arms"]
