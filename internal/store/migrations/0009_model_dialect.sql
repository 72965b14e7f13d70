-- The tool-call dialect recognised in each model's chat template
-- (toolcall.TemplateDialect: "xml", "glm", "deepseek", …; '' = none), kept
-- with the model so that the offline list shows it too.

ALTER TABLE models ADD COLUMN dialect TEXT NOT NULL DEFAULT '';
