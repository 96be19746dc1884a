"""Students' notebooks: the build's executed notebooks for Jupyter, Colab and SageMaker."""
